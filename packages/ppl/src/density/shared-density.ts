import { getBackend, type Backend, type Bindings, type Executable, type Node, type TensorValue } from "@ppl/tensor";
import { deserializeGraph, serializeGraph, toposort, type SerializedGraph } from "@ppl/tensor/ir";
import { Arena } from "@ppl/tensor/backend";
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
  /** Every other leaf's values, row-major, in shared memory (those not in the arena). */
  readonly data: Readonly<Record<string, Float64Array>>;
  /** The WebAssembly memory holding the large data, when the density keeps them in one (see arenaBindings), and where each leaf's values are. */
  readonly arena?: { readonly memory: WebAssembly.Memory; readonly at: Readonly<Record<string, readonly [byteOffset: number, length: number]>> };
}

// Data from this many values up go into a WebAssembly arena, where long matrix products run.
const ARENA_MIN_VALUES = 65536;

/**
 * The bindings with every f64 array of the graph's data leaves copied into one WebAssembly arena,
 * when some leaf is large enough for the compiled path's WebAssembly matrix products to pay off;
 * null otherwise. The arena is shared memory: worker threads read the same copy.
 */
export function arenaBindings(outputs: readonly Node[], bindings: Bindings): { arena: Arena; bindings: Record<string, Bindings[string]> } | null {
  const leaves = toposort(outputs).filter((n) => n.op === "data" && n.dtype === "f64");
  if (!leaves.some((n) => n.size >= ARENA_MIN_VALUES)) return null;
  let arena: Arena;
  try {
    arena = Arena.create();
  } catch {
    return null; // no shared WebAssembly memory here: the JavaScript loops do the work
  }
  const out: Record<string, Bindings[string]> = { ...bindings };
  for (const leaf of leaves) {
    const v = bindings[leaf.attrs.name!];
    if (v === undefined || typeof v === "number") continue;
    const values: ArrayLike<number> = "data" in v && "shape" in v ? v.data : (v as ArrayLike<number>);
    const copy = arena.alloc(values.length);
    copy.set(values);
    out[leaf.attrs.name!] = copy;
  }
  return { arena, bindings: out };
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

/** Packs [lp, gradient] and its bindings for other threads: the data copied once into shared memory (or left in the arena they are in). */
export function shareDensity(outputs: readonly Node[], bindings: Bindings, dim: number, position: string, backend: string, arena?: Arena): SharedDensity {
  const data: Record<string, Float64Array> = {};
  const at: Record<string, readonly [number, number]> = {};
  for (const leaf of toposort(outputs)) {
    if (leaf.op !== "data" && leaf.op !== "param") continue;
    const name = leaf.attrs.name!;
    if (name === position || name in data || name in at) continue;
    const v = bindings[name];
    if (v === undefined) continue;
    const values: ArrayLike<number> = typeof v === "number" ? [v] : "data" in v && "shape" in v ? v.data : (v as ArrayLike<number>);
    if (values instanceof Float64Array && arena && Arena.of(values) === arena) {
      at[name] = [values.byteOffset, values.length];
      continue;
    }
    const shared = new Float64Array(new SharedArrayBuffer(values.length * Float64Array.BYTES_PER_ELEMENT));
    shared.set(values);
    data[name] = shared;
  }
  return { dim, backend, graph: serializeGraph(outputs), position, data, ...(arena ? { arena: { memory: arena.memory, at } } : {}) };
}

/** A batched density rebuilt from a {@link SharedDensity} (in a worker thread). */
export async function sharedDensity(spec: SharedDensity): Promise<BatchedDensity> {
  const backend: Backend = await getBackend(spec.backend);
  if (!backend.compileSync) throw new Error(`sharedDensity: backend '${spec.backend}' has no synchronous path`);
  const exe = backend.compileSync(deserializeGraph(spec.graph));
  // Views of the arena made here, so that this thread's kernels know the data are in it.
  const data: Record<string, Float64Array> = { ...spec.data };
  if (spec.arena) {
    const arena = Arena.adopt(spec.arena.memory);
    for (const [name, [offset, length]] of Object.entries(spec.arena.at)) data[name] = arena.view(offset, length);
  }
  const logpGrad = batchedLogpGrad(exe, data, spec.dim, spec.position, () => undefined);
  return { dim: spec.dim, logpGrad };
}
