// A run that starts on the CPU while the GPU sampler is prepared (pending-runner.ts, lavapipe): the
// chains move to the GPU with where they stand once it is ready and not beaten, the iterations
// before the move are the CPU run's, those after it carry the GPU's f32 lps, and a GPU the CPU
// beats only runs its trial.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample, sampleAsync, type BatchedDensity, type SampleResult } from "@ppl/ppl";
import type { ReadyRunner } from "@ppl/ppl/runner";
import { usableDevices } from "@ppl/vulkan";
import { prepareGpuNuts, type ExecutionShape, type GpuNuts } from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const data = JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")) as never;
const model = compileModel(eightSchools, data);
const settings = { chains: 3, warmup: 300, draws: 30, seed: 11, maxDepth: 6 } as const;
const total = settings.warmup + settings.draws;

const prepare = (shape: ExecutionShape): Promise<GpuNuts> =>
  prepareGpuNuts(model, { chains: settings.chains, maxDepth: 6, dtype: "f32", iterationsPerSubmit: 20, shape });
const readyOf = (gpu: GpuNuts, density: BatchedDensity): ReadyRunner => ({ transitionRunner: gpu, density: gpu.hostDensity(density), blockIterations: gpu.blockIterations! });

// Iterations at which each chain's lp is the f64 CPU density's at its draw (sampling draws only).
async function exactLps(res: SampleResult): Promise<number> {
  const density = await modelDensity(model);
  const lp = new Float64Array(1), grad = new Float64Array(res.dim);
  let exact = 0;
  res.draws.forEach((d, c) => {
    for (let i = 0; i < res.drawsDone; i++) {
      density.logpGrad(d.subarray(i * res.dim, (i + 1) * res.dim), lp, grad);
      if (lp[0] === res.stats[c]!.lp[i]) exact++;
    }
  });
  return exact;
}

// Each reported iteration's positions, in order.
function recorder(): { rows: number[][]; onDraw: (d: { iteration: number; position: Float64Array }) => void } {
  const rows: number[][] = [];
  return { rows, onDraw: (d) => void rows.push([d.iteration, ...d.position]) };
}

describe.runIf(usableDevices().length > 0)("starting on the CPU while the GPU sampler is prepared", () => {
  it("device shape, prepared while the CPU samples: moves, the CPU's iterations first, the GPU's after", async () => {
    const density = await modelDensity(model);
    const cpuOnly = recorder();
    sample(density, { ...settings, onDraw: cpuOnly.onDraw });
    // The CPU crawls (2 ms a call) until the GPU is ready, so that the run cannot end first.
    let prepared = false;
    const slow: BatchedDensity = {
      dim: density.dim,
      logpGrad(q, lp, g, a) {
        if (!prepared) for (const until = performance.now() + 2; performance.now() < until;);
        density.logpGrad(q, lp, g, a);
      },
    };
    const pending = prepare("device").then((gpu) => ((prepared = true), gpu));
    const run = recorder();
    let res: SampleResult;
    try {
      res = await sampleAsync(slow, { ...settings, onDraw: run.onDraw, pendingRunner: { ready: pending.then((gpu) => readyOf(gpu, density)), margin: Infinity, probeSeconds: 0.01, startAfterSeconds: 0 } });
    } finally {
      (await pending).dispose();
    }
    const d = res.pendingRunner!;
    expect(d).toMatchObject({ reason: "measured", moved: true });
    expect(d.runnerSecondsPerGradient).toBeGreaterThan(0);
    // Every iteration reported once, in order (the trial's are thrown away); those before the move
    // are the CPU run's bits.
    expect(run.rows.map((r) => r[0])).toEqual(cpuOnly.rows.map((r) => r[0]));
    expect(run.rows.slice(0, d.iteration * settings.chains)).toEqual(cpuOnly.rows.slice(0, d.iteration * settings.chains));
    expect(res.drawsDone).toBe(settings.draws);
    // On the GPU, lps are f32 sums: few if any equal the f64 density's.
    expect(await exactLps(res)).toBeLessThan(settings.chains * settings.draws / 2);
  });

  it("thread shape, already prepared: the move after the CPU's first iterations", async () => {
    const density = await modelDensity(model);
    const gpu = await prepare("thread");
    try {
      const res = await sampleAsync(density, { ...settings, pendingRunner: { ready: Promise.resolve(readyOf(gpu, density)), margin: Infinity, probeSeconds: 0.01, startAfterSeconds: 0 } });
      expect(res.pendingRunner).toMatchObject({ reason: "measured", moved: true });
      expect(res.pendingRunner!.iteration).toBeLessThan(total);
      expect(res.drawsDone).toBe(settings.draws);
      expect(gpu.counters.submits).toBeGreaterThan(0);
    } finally {
      gpu.dispose();
    }
  });

  it("a GPU the CPU beats runs its trial only: every draw is the CPU run's", async () => {
    const density = await modelDensity(model);
    const want = sample(density, settings);
    const gpu = await prepare("thread");
    try {
      const res = await sampleAsync(density, { ...settings, threads: 2, pendingRunner: { ready: Promise.resolve(readyOf(gpu, density)), margin: 0, probeSeconds: 0.01, startAfterSeconds: 0 } });
      expect(res.pendingRunner).toMatchObject({ reason: "measured", moved: false, threads: 2 });
      expect(gpu.counters.submits).toBeGreaterThan(0);
      expect(res.draws.map((x) => Array.from(x))).toEqual(want.draws.map((x) => Array.from(x)));
      expect(await exactLps(res)).toBe(settings.chains * settings.draws);
    } finally {
      gpu.dispose();
    }
  });
});
