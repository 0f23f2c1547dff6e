// Eight samplings at once in one process on lavapipe, each with its own manager, interleaved
// step by step on the event loop (sampleAsync yielding after every iteration) and compiling their
// shaders concurrently into the same SPIR-V cache, give bit for bit the draws and statistics of
// the same eight runs made one after the other: nothing is shared between runs that one could
// change under another (device state, kernels, random streams, caches).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sampleAsync, type CompiledModel, type SampleResult } from "@ppl/ppl";
import { loadAddon, usableDevices } from "@ppl/vulkan";
import { closeIdleDevices, prepareGpuNuts, type ExecutionShape } from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";
import linearRegression from "../../../examples/linear_regression.ts";

const read = (url: URL): unknown => JSON.parse(readFileSync(url, "utf8"));
const schools = compileModel(eightSchools, read(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url)) as never);
const regression = compileModel(linearRegression, read(new URL("../../../examples/linear_regression.json", import.meta.url)) as never);

interface Run {
  readonly model: CompiledModel;
  readonly chains: number;
  readonly seed: number;
  readonly dtype: "f32" | "f64";
  readonly shape?: ExecutionShape;
}

// Small models and few iterations: eight runs twice stay quick on two cores.
const RUNS: readonly Run[] = [
  { model: schools, chains: 2, seed: 1, dtype: "f64" },
  { model: schools, chains: 3, seed: 2, dtype: "f32" },
  { model: regression, chains: 2, seed: 3, dtype: "f64" },
  { model: schools, chains: 2, seed: 4, dtype: "f64", shape: "workgroup" },
  { model: regression, chains: 2, seed: 5, dtype: "f32" },
  { model: schools, chains: 4, seed: 6, dtype: "f64", shape: "device" },
  { model: regression, chains: 3, seed: 7, dtype: "f64", shape: "workgroup" },
  { model: schools, chains: 2, seed: 1, dtype: "f64" }, // the first run again, alongside it
];

/** One run's sampler on the device, from a fresh manager (compiling its kernels). */
function prepare(r: Run) {
  return prepareGpuNuts(r.model, { chains: r.chains, maxDepth: 6, dtype: r.dtype, iterationsPerSubmit: 3, ...(r.shape ? { shape: r.shape } : {}) });
}

/** One run on a prepared sampler; the result as plain arrays for an exact comparison. */
async function run(r: Run, gpu: Awaited<ReturnType<typeof prepare>>, onDraw?: () => void): Promise<{ draws: number[][]; stats: Record<string, number[]>[]; stepSizes: number[] }> {
  let res: SampleResult;
  try {
    res = await sampleAsync(await modelDensity(r.model), { chains: r.chains, warmup: 20, draws: 10, seed: r.seed, maxDepth: 6, transitionRunner: gpu, yieldEveryMs: 0, ...(onDraw ? { onDraw } : {}) });
  } finally {
    gpu.dispose();
  }
  return {
    draws: res.draws.map((d) => Array.from(d)),
    stats: res.stats.map((s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Array.from(v as Float64Array)]))),
    stepSizes: res.adaptation.map((a) => a.stepSize),
  };
}

describe.runIf(usableDevices().length > 0)("concurrent samplings on lavapipe", () => {
  it("8 at once equal the same 8 one after the other, bit for bit", async () => {
    const sequential = [];
    for (const r of RUNS) sequential.push(await run(r, await prepare(r)));
    // Which run each iteration came from, in the order they happened. The eight compile at once
    // (their pipelines build on worker threads, some finishing long after others), then sample at once.
    const order: number[] = [];
    const prepared = await Promise.all(RUNS.map(prepare));
    const concurrent = await Promise.all(RUNS.map((r, i) => run(r, prepared[i]!, () => order.push(i))));
    // They did run at once: every run had iterations before some other run's last one ended.
    const lastOf = (i: number): number => order.lastIndexOf(i);
    for (let i = 0; i < RUNS.length; i++) expect(order.indexOf(i), `run ${i + 1} started before the others ended`).toBeLessThan(Math.min(...RUNS.map((_, j) => (j === i ? Infinity : lastOf(j)))));
    for (let i = 0; i < RUNS.length; i++) {
      expect(concurrent[i]!.draws, `run ${i + 1}: draws`).toEqual(sequential[i]!.draws);
      expect(concurrent[i]!.stats, `run ${i + 1}: sampler statistics`).toEqual(sequential[i]!.stats);
      expect(concurrent[i]!.stepSizes, `run ${i + 1}: adapted step sizes`).toEqual(sequential[i]!.stepSizes);
    }
    // The runs differ from one another (a shared state could not hide behind equal runs), but for the repeated one.
    expect(sequential[1]!.draws).not.toEqual(sequential[0]!.draws);
    expect(sequential[7]!.draws).toEqual(sequential[0]!.draws);
    expect(sequential.flatMap((s) => s.draws.flat()).every(Number.isFinite)).toBe(true);
    // Every run gave its device objects back (the idle devices, kept for a next run, closed too).
    closeIdleDevices();
    const load = loadAddon();
    expect(load.ok && load.addon.testHooks.live()).toEqual({ contexts: 0, buffers: 0 });
  });
});
