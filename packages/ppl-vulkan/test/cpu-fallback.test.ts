// The measured-cost fallback with the GPU sampler's own runner (lavapipe): the chains move to the
// CPU sampler with where they stand, in warmup and in the middle of sampling blocks started ahead;
// the draws before the move are the GPU run's, those after it carry the CPU density's exact lps.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample, sampleAsync, type SampleResult } from "@ppl/ppl";
import type { FallbackDecision } from "@ppl/ppl/runner";
import { usableDevices } from "@ppl/vulkan";
import { prepareGpuNuts, type ExecutionShape } from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const data = JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")) as never;
const model = compileModel(eightSchools, data);
const settings = { chains: 3, warmup: 200, draws: 30, seed: 5, maxDepth: 6 } as const;

// Each chain's sampling draws' lps against the f64 CPU density at the same draws.
async function lpsAgainstCpu(res: SampleResult): Promise<{ exact: number; all: number }> {
  const density = await modelDensity(model);
  const lp = new Float64Array(1), grad = new Float64Array(res.dim);
  let exact = 0, all = 0;
  res.draws.forEach((d, c) => {
    for (let i = 0; i < res.drawsDone; i++) {
      density.logpGrad(d.subarray(i * res.dim, (i + 1) * res.dim), lp, grad);
      all++;
      if (lp[0] === res.stats[c]!.lp[i]) exact++;
    }
  });
  return { exact, all };
}

describe.runIf(usableDevices().length > 0)("falling back from the GPU sampler to the CPU", () => {
  for (const shape of ["device", "thread"] as const satisfies readonly ExecutionShape[]) {
    it(`${shape} shape: moved after warmup's second block, the first iterations are the GPU run's`, async () => {
      const density = await modelDensity(model);
      const runs: { res: SampleResult; warmup: number[][] }[] = [];
      for (const margin of [Infinity, 0]) {
        const gpu = await prepareGpuNuts(model, { chains: settings.chains, maxDepth: 6, dtype: "f32", iterationsPerSubmit: 25, shape });
        const warmup: number[][] = [];
        try {
          const res = await sampleAsync(gpu.hostDensity(density), {
            ...settings, transitionRunner: gpu, fallback: { density, threads: 1, margin },
            onDraw: (d) => {
              if (d.warmup && d.iteration < 150) warmup.push(Array.from(d.position));
            },
          });
          runs.push({ res, warmup });
        } finally {
          gpu.dispose();
        }
      }
      const [kept, moved] = runs as [(typeof runs)[0], (typeof runs)[0]];
      expect(kept.res.fallback!.switched).toBe(false);
      expect(moved.res.fallback!.switched).toBe(true);
      expect(moved.res.fallback!.iteration).toBe(150);
      expect(moved.res.fallback!.runnerSecondsPerGradient).toBeGreaterThan(0);
      expect(moved.warmup).toEqual(kept.warmup);
      // On the GPU, lps are f32 sums; after the move every draw's lp is the CPU density's, exactly.
      const after = await lpsAgainstCpu(moved.res);
      expect(after.exact).toBe(after.all);
      expect((await lpsAgainstCpu(kept.res)).exact).toBeLessThan(after.all);
      expect(moved.res.drawsDone).toBe(settings.draws);
    });
  }

  it("moves in the middle of sampling, with a block on the device started ahead, and gives the device back", async () => {
    const density = await modelDensity(model);
    const gpu = await prepareGpuNuts(model, { chains: settings.chains, maxDepth: 6, dtype: "f32", iterationsPerSubmit: 3, shape: "device" });
    const decisions: FallbackDecision[] = [];
    let res: SampleResult;
    try {
      res = await sampleAsync(gpu.hostDensity(density), {
        ...settings, transitionRunner: gpu, yieldEveryMs: 0,
        fallback: { density, threads: 1, margin: 0, after: settings.warmup + 5, onDecision: (d) => decisions.push(d) },
      });
    } finally {
      gpu.dispose();
    }
    expect(gpu.counters.blocksAhead).toBeGreaterThan(0);
    expect(decisions.map((d) => [d.iteration, d.switched])).toEqual([[settings.warmup + 5, true]]);
    // Sampling draws 0–4 came from the GPU (f32 lps), 5 on from the CPU.
    const cpu = new Float64Array(1), grad = new Float64Array(res.dim);
    for (let c = 0; c < settings.chains; c++) {
      for (let i = 5; i < settings.draws; i++) {
        density.logpGrad(res.draws[c]!.subarray(i * res.dim, (i + 1) * res.dim), cpu, grad);
        expect(res.stats[c]!.lp[i]).toBe(cpu[0]);
      }
    }
    // A synchronous run decides the same way.
    const gpu2 = await prepareGpuNuts(model, { chains: settings.chains, maxDepth: 6, dtype: "f32", iterationsPerSubmit: 3, shape: "device" });
    try {
      const syncRes = sample(gpu2.hostDensity(density), { ...settings, transitionRunner: gpu2, fallback: { density, threads: 1, margin: 0, after: settings.warmup + 5 } });
      expect(syncRes.fallback!.switched).toBe(true);
      expect(syncRes.draws.map((d) => Array.from(d))).toEqual(res.draws.map((d) => Array.from(d)));
    } finally {
      gpu2.dispose();
    }
  });
});
