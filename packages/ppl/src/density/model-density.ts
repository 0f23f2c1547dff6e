import { getBackend, type Backend, type Bindings, type Node, type TensorValue } from "@ppl/tensor";
import { optimize } from "@ppl/tensor/passes";
import type { Arena } from "@ppl/tensor/backend";
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
  const dim = model.dim;
  const q: TensorValue = { dtype: "f64", shape: [dim], data: new Float64Array(dim) };
  let evaluations = 0;
  // The log density and the generated quantities are compiled (and the data they read hoisted and
  // copied into the arena) on first use: a sampler whose transitions run elsewhere (the GPU
  // runner evaluates the chains' gradients on the device) never evaluates the log density here,
  // and for a large data set that preparation is most of the time before sampling starts.
  let lpPart: { outputs: readonly Node[]; bindings: Record<string, Bindings[string]>; arena?: Arena; logpGrad: BatchedDensity["logpGrad"] } | undefined;
  const lp = () => {
    if (lpPart) return lpPart;
    // The CPU differentiates the fused log densities (hand-written partials of long observations).
    const graph = gradientGraph(model, { fused: true });
    const density = hoistData([graph.lp, graph.grad], model.dataBindings, backend);
    const lpGrad = backend.compileSync!(density.outputs);
    // Large data go into a WebAssembly arena (shared by every thread) where the long products run.
    const inArena = arenaBindings(density.outputs, { ...model.dataBindings, ...density.bindings, q });
    const bindings: Record<string, Bindings[string]> = inArena?.bindings ?? { ...model.dataBindings, ...density.bindings, q };
    const logpGrad = batchedLogpGrad(lpGrad, bindings, dim, "q", () => void evaluations++);
    return (lpPart = { outputs: density.outputs, bindings, ...(inArena ? { arena: inArena.arena } : {}), logpGrad });
  };
  let genPart: { run(x: Float64Array): Float64Array } | undefined;
  const gen = () => {
    if (genPart) return genPart;
    // The two graphs' hoisted leaves share names; each executable gets its own bindings.
    const generated = hoistData(optimize([model.generatedFlat]), model.dataBindings, backend);
    const exe = backend.compileSync!(generated.outputs);
    const bindings: Record<string, Bindings[string]> = { ...model.dataBindings, ...generated.bindings, q };
    const bound = exe.bindSync?.(bindings);
    if (!bound) {
      return (genPart = {
        run: (x) => {
          q.data.set(x);
          return Float64Array.from(exe.runSync!(bindings)[0]!.data);
        },
      });
    }
    // Bound once, as the gradient is: q read in place, the values written into one buffer, copied out.
    const slot = bound.slot("q");
    const out = new Float64Array(model.generatedFlat.size);
    bound.setOutput(0, out, 0);
    return (genPart = {
      run: (x) => {
        if (slot >= 0) bound.setInput(slot, x, 0);
        bound.run();
        return Float64Array.from(out);
      },
    });
  };
  let shared: SharedDensity | undefined;
  return {
    dim,
    backend,
    get evaluations() {
      return evaluations;
    },
    logpGrad: (x, lpOut, grad, active) => lp().logpGrad(x, lpOut, grad, active),
    share() {
      const part = lp();
      return (shared ??= shareDensity(part.outputs, part.bindings, dim, "q", backend.name, part.arena));
    },
    generated: (x) => gen().run(x),
  };
}
