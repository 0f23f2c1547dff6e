import type { DType, Node } from "@ppl/tensor";
import { ExprRenderer } from "./expr.ts";
import { convert, glslType } from "./glsl.ts";
import { flatten } from "./index-math.ts";
import { renderScan } from "./scan.ts";
import { schedule } from "./schedule.ts";
import type { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";
import { unitWriter, type UnitContext } from "./units.ts";

/** Reads a graph's leaves (params, data, args, array constants) for a single-thread program; undefined defers to the outer storage. */
export type LeafReader = (node: Node, idx: readonly string[], scope: Scope) => string | undefined;

/** A graph rendered for one thread: read its outputs (and any node) through `r`. */
export interface SequentialProgram {
  readonly r: ExprRenderer;
  readonly storage: Storage;
  /** Elements placed in the spill area (0 without one). */
  readonly spilled: number;
}

/**
 * Where a single-thread program keeps materialized nodes too large for private arrays: drivers
 * reject shaders whose private memory grows large, so values above `limit` elements go to the
 * thread's slice of a global buffer, `at(offset, flat)` naming an element of it.
 */
export interface Spill {
  readonly limit: number;
  readonly dtype: DType;
  at(offset: number, flat: string): string;
}

/**
 * Render a whole graph as straight-line code for ONE thread: every materialized node becomes a
 * local array filled by a loop over its units, elementwise work is inlined as usual. This is how
 * scan bodies run, and how a one-chain log density runs inside a thread-per-chain sampler.
 */
export function renderSequential(
  outputs: readonly Node[],
  leaves: LeafReader,
  scope: Scope,
  parent: ExprRenderer | undefined,
  outer: Storage | undefined,
  prefix: string,
  spill?: Spill,
): SequentialProgram {
  const sched = schedule(outputs);
  // Locals are numbered by their place in the schedule, not by node id, so that the generated source
  // does not change with how many nodes were made before this graph (golden kernels stay stable).
  const number = new Map(sched.order.map((n, i) => [n, i]));
  const localName = (n: Node) => `${prefix}_l${number.get(n)}`;
  const locals = new Set<Node>();
  const spilled = new Map<Node, number>();
  let spillSize = 0;
  const place = (n: Node) => {
    if (spill && n.size > spill.limit) {
      spilled.set(n, spillSize);
      spillSize += n.size;
    } else locals.add(n);
  };
  for (const n of sched.kernels) if (n.op !== "scan") place(n);
  for (const n of sched.order) if (n.op === "tuple_get") place(n);
  const tupleUsers = new Map<Node, Node[]>();
  for (const n of sched.order) if (n.op === "tuple_get") tupleUsers.set(n.inputs[0]!, [...(tupleUsers.get(n.inputs[0]!) ?? []), n]);
  const storage: Storage = {
    read(n, idx, sc) {
      if (n.op === "param" || n.op === "data" || n.op === "arg" || (n.op === "const" && typeof n.attrs.value !== "number")) {
        const e = leaves(n, idx, sc);
        if (e !== undefined) return e;
      }
      if (locals.has(n)) return `${localName(n)}[${flatten(n.shape, idx)}]`;
      const off = spilled.get(n);
      if (off !== undefined && spill) return convert(spill.at(off, flatten(n.shape, idx)), spill.dtype, n.dtype);
      return outer?.read(n, idx, sc);
    },
    write(n, flat, value) {
      const off = spilled.get(n);
      if (off !== undefined && spill) return `${spill.at(off, flat)} = ${convert(value, n.dtype, spill.dtype)};`;
      return `${localName(n)}[${flat}] = ${value};`;
    },
  };
  const r = new ExprRenderer(storage, parent);
  const ctx: UnitContext = { r, storage, scan: (s, sc) => renderScan(s, sc, ctx, tupleUsers.get(s) ?? []) };
  for (const n of locals) scope.emit(`${glslType(n.dtype)} ${localName(n)}[${Math.max(1, n.size)}];`);
  for (const k of sched.kernels) {
    const w = unitWriter(k);
    const body = scope.child();
    if (w.units === 1) {
      w.emit("0", body, ctx);
      scope.block("", body);
    } else {
      const u = r.fresh("u");
      w.emit(u, body, ctx);
      scope.block(`for (int ${u} = 0; ${u} < ${w.units}; ${u}++)`, body);
    }
  }
  return { r, storage, spilled: spillSize };
}
