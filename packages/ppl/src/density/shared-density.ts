import {
  deserializeGraph, getBackend, serializeGraph, toposort, type Backend, type Bindings, type Executable, type Node,
  type SerializedGraph, type TensorValue,
} from "@ppl/tensor";
import type { BatchedDensity } from "../sampler/density.ts";

/**
 * A log density as another thread rebuilds it: the graph of [lp, gradient] (data-only parts already
 * computed) as plain data, and the values of its data leaves in SharedArrayBuffers, which every
 * thread reads in place. The worker compiles the same graph on the same backend, so it computes
 * the same bits as the thread that shared it.
 */
export interface SharedDensity {
  readonly dim: number;
  /** The backend the graph is compiled on (a registered backend with a synchronous path). */
  readonly backend: string;
  /** [lp, gradient] of one chain. */
  readonly graph: SerializedGraph;
  /** The name of the position leaf. */
  readonly position: string;
  /** Every other leaf's values, row-major, in shared memory. */
  readonly data: Readonly<Record<string, Float64Array>>;
}

/** The sampler's logpGrad over the chains of a batch, from an executable of [lp, gradient] with `bindings` bound. */
export function batchedLogpGrad(
  exe: Executable, bindings: Bindings, dim: number, position: string, counted: () => void,
): BatchedDensity["logpGrad"] {
  // Where the backend can, the program reads each chain's row of q and writes its lp and gradient
  // in place: no copies and no allocation per gradient.
  const bound = exe.bindSync?.(bindings);
  if (bound) {
    const qSlot = bound.slot(position);
    return (qs, lp, grad, active) => {
      const chains = lp.length;
      for (let c = 0; c < chains; c++) {
        if (active && !active[c]) continue;
        if (qSlot >= 0) bound.setInput(qSlot, qs, c * dim);
        bound.setOutput(0, lp, c);
        bound.setOutput(1, grad, c * dim);
        bound.run();
        counted();
      }
    };
  }
  const q: TensorValue = { dtype: "f64", shape: [dim], data: new Float64Array(dim) };
  const withQ = { ...bindings, [position]: q };
  return (qs, lp, grad, active) => {
    const chains = lp.length;
    for (let c = 0; c < chains; c++) {
      if (active && !active[c]) continue;
      q.data.set(qs.subarray(c * dim, (c + 1) * dim));
      const [v, g] = exe.runSync!(withQ);
      lp[c] = v!.data[0]!;
      grad.set(g!.data, c * dim);
      counted();
    }
  };
}

/** Packs [lp, gradient] and its bindings for other threads: the data copied once into shared memory. */
export function shareDensity(outputs: readonly Node[], bindings: Bindings, dim: number, position: string, backend: string): SharedDensity {
  const data: Record<string, Float64Array> = {};
  for (const leaf of toposort(outputs)) {
    if (leaf.op !== "data" && leaf.op !== "param") continue;
    const name = leaf.attrs.name!;
    if (name === position || name in data) continue;
    const v = bindings[name];
    if (v === undefined) continue;
    const values: ArrayLike<number> = typeof v === "number" ? [v] : "data" in v && "shape" in v ? v.data : (v as ArrayLike<number>);
    const shared = new Float64Array(new SharedArrayBuffer(values.length * Float64Array.BYTES_PER_ELEMENT));
    shared.set(values);
    data[name] = shared;
  }
  return { dim, backend, graph: serializeGraph(outputs), position, data };
}

/** A batched density rebuilt from a {@link SharedDensity} (in a worker thread). */
export async function sharedDensity(spec: SharedDensity): Promise<BatchedDensity> {
  const backend: Backend = await getBackend(spec.backend);
  if (!backend.compileSync) throw new Error(`sharedDensity: backend '${spec.backend}' has no synchronous path`);
  const exe = backend.compileSync(deserializeGraph(spec.graph));
  const logpGrad = batchedLogpGrad(exe, spec.data, spec.dim, spec.position, () => undefined);
  return { dim: spec.dim, logpGrad };
}
