import { interpret, type Node, type Operand, type Shape, type TensorValue } from "@ppl/tensor";
import { broadcastIndex, sizeOf } from "@ppl/tensor/internals";
import type { Rng } from "../random/rng.ts";
import { isNodeValues, type Distribution, type ValuesAt } from "./distribution.ts";

/** Concrete values of distribution parameters: numbers as scalars, nodes at `at` (leaf bindings through the reference interpreter, or a NodeValues). */
export function evalOperands(ops: readonly Operand[], at: ValuesAt = {}): TensorValue[] {
  const nodes = ops.filter((o): o is Node => typeof o !== "number");
  const values = nodes.length === 0 ? [] : isNodeValues(at) ? at.values(nodes) : interpret(nodes, at);
  let k = 0;
  return ops.map((o) => (typeof o === "number" ? { dtype: "f64", shape: [], data: Float64Array.of(o) } : values[k++]!));
}

/** Parameter values broadcast to `batch`, one Float64Array per parameter. */
export function broadcastValues(values: readonly TensorValue[], batch: Shape): Float64Array[] {
  return values.map((v) => {
    const m = broadcastIndex(v.shape, batch);
    return Float64Array.from(m, (i) => v.data[i]!);
  });
}

/**
 * Draws of a scalar distribution: for every sample index and batch entry, `draw(rng, params)`
 * with that entry's parameter values. Result shape [...shape, ...batch].
 */
export function sampleScalar(
  rng: Rng,
  shape: Shape,
  batch: Shape,
  params: readonly Operand[],
  bindings: ValuesAt | undefined,
  draw: (rng: Rng, p: number[]) => number,
): TensorValue {
  const cols = broadcastValues(evalOperands(params, bindings), batch);
  const nb = sizeOf(batch);
  const ns = sizeOf(shape);
  const out = new Float64Array(ns * nb);
  const p = new Array<number>(cols.length);
  for (let s = 0; s < ns; s++) {
    for (let b = 0; b < nb; b++) {
      for (let k = 0; k < cols.length; k++) p[k] = cols[k]![b]!;
      out[s * nb + b] = draw(rng, p);
    }
  }
  return { dtype: "f64", shape: [...shape, ...batch], data: out };
}

/**
 * Draws of a distribution with event shape `event`: `draw(rng, params, out, offset)` fills one
 * event; `params` are per batch entry, each parameter's trailing `eventRanks[k]` axes kept whole.
 */
export function sampleEvents(
  rng: Rng,
  shape: Shape,
  batch: Shape,
  event: Shape,
  params: readonly Operand[],
  eventRanks: readonly number[],
  bindings: ValuesAt | undefined,
  draw: (rng: Rng, p: Float64Array[], out: Float64Array, offset: number) => void,
): TensorValue {
  const values = evalOperands(params, bindings);
  const nb = sizeOf(batch);
  // Per batch entry, a copy of each parameter's event block.
  const blocks = values.map((v, k) => {
    const r = eventRanks[k]!;
    const evShape = v.shape.slice(v.shape.length - r);
    const evSize = sizeOf(evShape);
    const m = broadcastIndex(v.shape.slice(0, v.shape.length - r), batch);
    return Array.from(m, (i) => v.data.subarray(i * evSize, (i + 1) * evSize));
  });
  const ns = sizeOf(shape);
  const es = sizeOf(event);
  const out = new Float64Array(ns * nb * es);
  for (let s = 0; s < ns; s++) {
    for (let b = 0; b < nb; b++) draw(rng, blocks.map((bl) => bl[b]!), out, (s * nb + b) * es);
  }
  return { dtype: "f64", shape: [...shape, ...batch, ...event], data: out };
}

/**
 * Draws of `dist` that fill a value of `shape`: [...lead, ...batch', ...event], where batch' is the
 * distribution's batch shape or one it broadcasts to. Each entry is an independent draw from its
 * own marginal (an observe or a parameter whose value is larger than its distribution). Returns
 * undefined when `shape` cannot hold the distribution's draws.
 */
export function sampleToShape(dist: Distribution, shape: Shape, rng: Rng, at: ValuesAt | undefined): TensorValue | undefined {
  const { batchShape: batch, eventShape: event } = dist;
  const lead = leadingAxes(dist, shape);
  if (lead !== undefined) {
    const v = dist.sample(rng, shape.slice(0, lead), at);
    return { dtype: v.dtype, shape: [...shape], data: v.data };
  }
  if (!holdsDraws(dist, shape)) return undefined;
  const outBatch = shape.slice(0, shape.length - event.length);
  // Batch axes of size 1 broadcast: draw the whole batch once per output entry and keep the entry it maps to.
  const n = sizeOf(outBatch);
  const nb = sizeOf(batch);
  const es = sizeOf(event);
  const draws = dist.sample(rng, [n], at).data;
  const map = broadcastIndex(batch, outBatch);
  const out = new Float64Array(n * es);
  for (let i = 0; i < n; i++) out.set(draws.subarray((i * nb + map[i]!) * es, (i * nb + map[i]! + 1) * es), i * es);
  return { dtype: "f64", shape: [...shape], data: out };
}

/** True when a value of `shape` can hold draws of `dist` (see sampleToShape). */
export function holdsDraws(dist: Distribution, shape: Shape): boolean {
  if (leadingAxes(dist, shape) !== undefined) return true;
  const event = dist.eventShape;
  if (shape.length < event.length) return false;
  const outBatch = shape.slice(0, shape.length - event.length);
  return event.every((d, i) => shape[outBatch.length + i] === d) && broadcastsTo(dist.batchShape, outBatch);
}

// The number of leading axes of `shape` before the distribution's own shape, when it ends with it.
function leadingAxes(dist: Distribution, shape: Shape): number | undefined {
  const own = [...dist.batchShape, ...dist.eventShape];
  const lead = shape.length - own.length;
  return lead >= 0 && own.every((d, i) => shape[lead + i] === d) ? lead : undefined;
}

function broadcastsTo(from: Shape, to: Shape): boolean {
  if (from.length > to.length) return false;
  const off = to.length - from.length;
  return from.every((d, i) => d === 1 || d === to[off + i]);
}
