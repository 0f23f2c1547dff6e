import { getBackend, type Backend, type Bindings, type Executable, type TensorValue } from "@ppl/tensor";
import { optimize } from "@ppl/tensor/internals";
import type { CompiledModel } from "../model/compile.ts";
import type { BatchedDensity } from "../sampler/density.ts";
import { gradientGraph } from "./gradient-graph.ts";
import { hoistData } from "./hoist-data.ts";
import { arenaBindings, batchedLogpGrad, shareDensity, type SharedDensity } from "./shared-density.ts";

/** A model's log density on a backend, for the sampler, plus its reported quantities for writing draws. */
export interface ModelDensity extends BatchedDensity {
  readonly backend: Backend;
  /** Constrained parameters and deterministics at one unconstrained point, in constrainedNames() order. */
  generated(q: Float64Array): Float64Array;
  /** Number of gradient evaluations so far (per chain). */
  readonly evaluations: number;
  /** The log density for worker threads (its data in shared memory, copied once), where the backend is a registered one. */
  share?(): SharedDensity;
}

/** Options for building a model density. */
export interface ModelDensityOptions {
  /** Backend name or instance (default "cpu"). */
  backend?: string | Backend;
}

/**
 * Compile a model's log density and gradient for a synchronous backend (the CPU paths): one
 * executable evaluates one chain; chains that the sampler marks inactive are skipped. Data are
 * bound once and reused for every evaluation, and the parts of the graphs that read only data are
 * computed once (see hoistData).
 */
export async function modelDensity(model: CompiledModel, opts: ModelDensityOptions = {}): Promise<ModelDensity> {
  const backend = typeof opts.backend === "object" ? opts.backend : await getBackend(opts.backend ?? "cpu");
  if (!backend.compileSync) throw new Error(`modelDensity: backend '${backend.name}' has no synchronous path; use its own sampler driver`);
  const graph = gradientGraph(model);
  const density = hoistData([graph.lp, graph.grad], model.dataBindings, backend);
  const generated = hoistData(optimize([model.generatedFlat]), model.dataBindings, backend);
  const lpGrad = backend.compileSync(density.outputs);
  const gen = backend.compileSync(generated.outputs);
  const dim = model.dim;
  const q: TensorValue = { dtype: "f64", shape: [dim], data: new Float64Array(dim) };
  // The two graphs' hoisted leaves share names; each executable gets its own bindings.
  // Large data go into a WebAssembly arena (shared by every thread) where the long products run.
  const inArena = arenaBindings(density.outputs, { ...model.dataBindings, ...density.bindings, q });
  const lpBindings: Record<string, Bindings[string]> = inArena?.bindings ?? { ...model.dataBindings, ...density.bindings, q };
  const genBindings: Record<string, Bindings[string]> = { ...model.dataBindings, ...generated.bindings, q };
  let evaluations = 0;
  const run = (exe: Executable, bindings: Bindings, x: Float64Array): TensorValue[] => {
    q.data.set(x);
    return exe.runSync!(bindings);
  };
  const logpGrad = batchedLogpGrad(lpGrad, lpBindings, dim, "q", () => void evaluations++);
  const genBound = gen.bindSync?.(genBindings);
  const genSlot = genBound ? genBound.slot("q") : -1;
  const genOut = new Float64Array(model.generatedFlat.size);
  genBound?.setOutput(0, genOut, 0);
  let shared: SharedDensity | undefined;
  return {
    dim,
    backend,
    get evaluations() {
      return evaluations;
    },
    logpGrad,
    share() {
      return (shared ??= shareDensity(density.outputs, lpBindings, dim, "q", backend.name, inArena?.arena));
    },
    generated(x) {
      if (!genBound) return Float64Array.from(run(gen, genBindings, x)[0]!.data);
      // Bound once, as the gradient is: q read in place, the values written into one buffer, copied out.
      if (genSlot >= 0) genBound.setInput(genSlot, x, 0);
      genBound.run();
      return Float64Array.from(genOut);
    },
  };
}
