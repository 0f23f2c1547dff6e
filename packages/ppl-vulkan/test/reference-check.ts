// Shared checks of the GPU tests: outputs compiled for the Vulkan backend (in f32 or f64, with no
// node left to the host) against the reference interpreter on the same bindings, and GPU NUTS
// against the CPU sampler, transition for transition.
import { expect } from "vitest";
import { interpret, type Backend, type Node } from "@ppl/tensor";
import { castFloats, optimize } from "@ppl/tensor/internals";
import { modelDensity, sample, type CompiledModel } from "@ppl/ppl";
import { prepareGpuNuts, type ExecutionShape } from "../src/index.ts";

/**
 * Runs `outputs` on `backend` in `dtype` and expects every element within tolerance·(1 + |reference|)
 * of the f64 reference; a failure names the output by `labels[i]` (default "output i").
 */
export async function expectReferenceValues(
  backend: Backend, outputs: readonly Node[], bindings: Readonly<Record<string, ArrayLike<number>>>, dtype: "f32" | "f64", tolerance: number,
  labels?: readonly string[],
): Promise<void> {
  const want = interpret(outputs, bindings);
  const exe = await backend.compile(optimize(dtype === "f32" ? castFloats(outputs, "f32") : outputs));
  expect(exe.stats.hostNodes).toBe(0);
  const got = await exe.run(Object.fromEntries(Object.entries(bindings).map(([k, x]) => [k, Float64Array.from(x)])));
  want.forEach((w, i) => w.data.forEach((v, j) => {
    const g = Number(got[i]!.data[j]);
    expect(Math.abs(g - v) <= tolerance * (1 + Math.abs(v)), `${labels?.[i] ?? `output ${i}`}[${j}]: ${g} vs ${v}`).toBe(true);
  }));
  exe.dispose?.();
}

/** Settings of a short run without warmup, the same on both samplers. */
export interface TransitionCheck {
  readonly chains: number;
  readonly draws: number;
  readonly seed: number;
  readonly stepSize: number;
  readonly maxDepth: number;
}

/**
 * Samples `compiled` on the CPU and with GPU NUTS in `shape` (f64) from the same seed, without
 * warmup, and expects every chain's tree depths equal and its draws within 1e-9.
 */
export async function expectCpuTransitions(compiled: CompiledModel, run: TransitionCheck, shape: ExecutionShape): Promise<void> {
  const opts = { ...run, warmup: 0 };
  const cpu = sample(await modelDensity(compiled), opts);
  const gpu = await prepareGpuNuts(compiled, { chains: run.chains, maxDepth: run.maxDepth, dtype: "f64", iterationsPerSubmit: 3, shape });
  try {
    const res = sample(await modelDensity(compiled), { ...opts, transitionRunner: gpu });
    for (let c = 0; c < run.chains; c++) {
      expect(Array.from(res.stats[c]!.treeDepth)).toEqual(Array.from(cpu.stats[c]!.treeDepth));
      res.draws[c]!.forEach((v, i) => expect(Math.abs(v - cpu.draws[c]![i]!)).toBeLessThan(1e-9));
    }
  } finally {
    gpu.dispose();
  }
}
