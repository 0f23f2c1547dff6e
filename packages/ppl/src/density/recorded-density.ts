import type { Backend, Node } from "@ppl/tensor";
import { compiledBackend, type CompiledExecutable } from "@ppl/tensor/backend";
import type { CompiledModel } from "../model/compile.ts";
import { modelDensity, type ModelDensity } from "./model-density.ts";

/** A model's density on the compiled CPU backend, with the [lp, gradient] executable it compiled. */
export interface RecordedDensity {
  readonly density: ModelDensity;
  /** The executable the density evaluates: its generated source and kernel count, for tests and benchmarks. */
  readonly exe: CompiledExecutable;
  /** The log density at q, with its gradient written to `grad`. */
  logpGrad(q: Float64Array, grad: Float64Array): number;
}

/** modelDensity on the compiled CPU backend, recording what it compiles, evaluated once so that its [lp, gradient] executable exists. */
export async function recordedDensity(cm: CompiledModel): Promise<RecordedDensity> {
  const cpu = compiledBackend();
  const made: CompiledExecutable[] = [];
  const recording: Backend = {
    name: cpu.name,
    device: cpu.device,
    compile: (outputs: readonly Node[]) => cpu.compile(outputs),
    compileSync: (outputs: readonly Node[]) => {
      const exe = cpu.compileSync(outputs);
      made.push(exe);
      return exe;
    },
  };
  const density = await modelDensity(cm, { backend: recording });
  const lp = new Float64Array(1);
  // modelDensity compiles [lp, grad] at its first evaluation (after the data hoists).
  density.logpGrad(new Float64Array(cm.dim), lp, new Float64Array(cm.dim));
  const exe = made.filter((e) => e.outputs.length === 2 && e.outputs[1]!.size === cm.dim).at(-1);
  if (!exe) throw new Error(`${cm.name}: modelDensity compiled no [lp, gradient] executable`);
  return {
    density,
    exe,
    logpGrad: (q, grad) => {
      density.logpGrad(q, lp, grad);
      return lp[0]!;
    },
  };
}
