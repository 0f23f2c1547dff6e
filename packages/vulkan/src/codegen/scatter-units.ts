import type { Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import { flatten, plus, unflatten } from "./index-math.ts";
import { knownSegments } from "./scatter-segments.ts";
import type { Scope } from "./scope.ts";
import { selfRead } from "./storage.ts";
import type { UnitContext, UnitWriter } from "./unit-writer.ts";

/** How a kernel reads a segment layout (see SegmentLayout): GLSL int expressions of offsets[j] and order[s]. */
export interface SegmentReader {
  offset(j: string, scope: Scope, ctx: UnitContext): string;
  entry(s: string, scope: Scope, ctx: UnitContext): string;
}

/**
 * The unit writer of a scatter_add. Indices fixed at build time: one unit per output element,
 * over its own segment of a layout computed on the host. Otherwise one unit for the whole node
 * (single-thread programs: scan bodies, a chain's log density in a thread); the multi-kernel
 * program builds the layout on the device instead (segment-sort.ts) and uses the segmented units.
 */
export function scatterAddUnits(node: Node): UnitWriter {
  const s = knownSegments(node);
  if (!s) return serialScatterUnits(node);
  return segmentedScatterUnits(node, {
    offset: (j, scope, { r }) => r.value(s.offsets, [j], scope),
    entry: (e, scope, { r }) => r.value(s.order, [e], scope),
  });
}

/**
 * scatter_add as one unit per output element: out[pre, j, post] sums updates[pre, p, post] over
 * the entries p of target j's segment, in their order — O(N + J) work over all units, and the
 * same sum order on every run.
 */
export function segmentedScatterUnits(node: Node, layout: SegmentReader): UnitWriter {
  const [upd, ind] = node.inputs as [Node, Node];
  const axis = node.attrs.axis!;
  const T = glslType(node.dtype);
  return {
    units: node.size,
    emit(u, scope, ctx) {
      const { r, storage } = ctx;
      const idx = unflatten(node.shape, u);
      const acc = r.fresh("acc");
      scope.emit(`${T} ${acc} = ${literal(0, node.dtype)};`);
      if (ind.size > 0) {
        const j = idx[axis]!;
        const [lo, hi, s, p] = [r.fresh("lo"), r.fresh("hi"), r.fresh("s"), r.fresh("p")];
        scope.emit(`int ${lo} = ${layout.offset(j, scope, ctx)};`);
        scope.emit(`int ${hi} = ${layout.offset(plus(j, "1"), scope, ctx)};`);
        // Every entry of target j's segment has index j (entries out of range belong to no
        // segment): what the updates gather by it is read once, before the loop.
        r.know(ind, unflatten(ind.shape, p), scope, j);
        const body = scope.loop([s, p]);
        body.emit(`int ${p} = ${layout.entry(s, body, ctx)};`);
        const v = r.value(upd, [...idx.slice(0, axis), ...unflatten(ind.shape, p), ...idx.slice(axis + 1)], body);
        body.emit(`${acc} += ${v};`);
        scope.block(`for (int ${s} = ${lo}; ${s} < ${hi}; ${s}++)`, body);
      }
      scope.emit(storage.write(node, u, acc));
    },
  };
}

/**
 * scatter_add computed whole by one thread: zero the output, then add each update at its target,
 * row-major over the updates (the CPU backends' order) — O(N) and no layout needed. An index
 * outside the axis is skipped: a shader cannot raise (known indices are checked when planning).
 */
export function serialScatterUnits(node: Node): UnitWriter {
  const [upd, ind] = node.inputs as [Node, Node];
  const axis = node.attrs.axis!;
  const k = ind.rank;
  const targets = node.shape[axis]!;
  return {
    units: 1,
    emit(_u, scope, { r, storage }) {
      const f = r.fresh("f");
      const zero = scope.child();
      zero.emit(storage.write(node, f, literal(0, node.dtype)));
      scope.block(`for (int ${f} = 0; ${f} < ${node.size}; ${f}++)`, zero);
      const e = r.fresh("e");
      const body = scope.child();
      const uIdx = unflatten(upd.shape, e);
      const j = r.value(ind, uIdx.slice(axis, axis + k), body);
      const hit = body.child();
      const at = [...uIdx.slice(0, axis), j, ...uIdx.slice(axis + k)];
      const v = r.value(upd, uIdx, hit);
      hit.emit(storage.write(node, flatten(node.shape, at), `${selfRead(node, storage, at, hit)} + ${v}`));
      body.block(`if (${j} >= 0 && ${j} < ${targets})`, hit);
      scope.block(`for (int ${e} = 0; ${e} < ${upd.size}; ${e}++)`, body);
    },
  };
}
