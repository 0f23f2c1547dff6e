// The inference layer's methods on the GPU's batched gradient: the method's controller on the host
// (ppl's TypeScript, unchanged), each round of all chains' gradients one device evaluation. Against
// the CPU density for the same seed, on whatever Vulkan device the machine has (lavapipe in CI).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, mcseMean, modelDensity, sample, SamplerOptionError, type SampleResult } from "@ppl/ppl";
import { prepareTransitionRunner } from "@ppl/ppl/runner";
import { usableDevices } from "@ppl/vulkan";
import { prepareGpuGradient, prepareRun } from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const data = JSON.parse(
  readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8"),
);
const device = usableDevices()[0];

/** The largest absolute difference between two runs' draws, over every chain. */
function largestDifference(a: SampleResult, b: SampleResult): number {
  let worst = 0;
  a.draws.forEach((d, c) => d.forEach((v, i) => (worst = Math.max(worst, Math.abs(v - b.draws[c]![i]!)))));
  return worst;
}

describe.runIf(device !== undefined && device.features.shaderFloat64)("layer methods on the GPU's batched gradient, f64, against the CPU density", () => {
  const compiled = compileModel(eightSchools, data);
  const chains = 16;
  const plan = { chains, maxDepth: 10, metric: "diag", dtype: "f64", transitions: "host" } as const;

  // Measured on lavapipe: the device's gradient equals the CPU's bit for bit, and its lp differs
  // from the CPU's by one unit in the last place at some points (its sum taken in another order).
  // That reaches the draws only through the accept statistic and the step size adapted from it:
  // the first iterations are the same bits, 50 agree to about 3e-13, and a few hundred part as
  // any chaotic dynamics do once their bits differ (a leapfrog count or an accept test flips).
  it("chees: the first transitions are the CPU's bits for the same seed, each round of gradients one device evaluation", async () => {
    const opts = { warmup: 10, draws: 10, seed: 7, stepSize: 0.3, method: "chees" } as const;
    const cpu = sample(await modelDensity(compiled), { ...opts, chains });
    const gpu = await prepareGpuGradient(compiled, plan);
    try {
      const host = await modelDensity(compiled);
      const res = sample(gpu.hostDensity(host), { ...opts, transitionRunner: gpu });
      // Every batched call went to the device; the host density evaluated nothing.
      expect(host.evaluations).toBe(0);
      // One evaluation a round: the initial points, the step-size search's trials, and each leapfrog of the lockstep chains.
      const leapfrogs = res.stats[0]!.nLeapfrog.reduce((a, n) => a + n, 0);
      expect(gpu.density.evaluations).toBeGreaterThan(leapfrogs);
      expect(res.gradientEvaluations).toEqual(cpu.gradientEvaluations);
      res.draws.forEach((d, c) => expect(Array.from(d)).toEqual(Array.from(cpu.draws[c]!)));
      res.stats.forEach((st, c) => expect(Array.from(st.nLeapfrog)).toEqual(Array.from(cpu.stats[c]!.nLeapfrog)));
    } finally {
      gpu.dispose();
    }
  });

  it("chees: a short run with warmup agrees with the CPU's to 1e-10", async () => {
    const opts = { warmup: 30, draws: 20, seed: 7, stepSize: 0.3, method: "chees" } as const;
    const cpu = sample(await modelDensity(compiled), { ...opts, chains });
    const gpu = await prepareGpuGradient(compiled, plan);
    try {
      const res = sample(gpu.hostDensity(await modelDensity(compiled)), { ...opts, transitionRunner: gpu });
      expect(largestDifference(res, cpu)).toBeLessThan(1e-10);
      res.adaptation.forEach((a, c) => expect(a.stepSize / cpu.adaptation[c]!.stepSize).toBeCloseTo(1, 10));
    } finally {
      gpu.dispose();
    }
  });

  it("random walk, a method with no gradient of its own and no adaptation: the CPU's bits", async () => {
    const opts = { warmup: 20, draws: 20, seed: 3, stepSize: 0.2, method: "random-walk" } as const;
    const cpu = sample(await modelDensity(compiled), { ...opts, chains });
    const gpu = await prepareGpuGradient(compiled, plan);
    try {
      const res = sample(gpu.hostDensity(await modelDensity(compiled)), { ...opts, transitionRunner: gpu });
      res.draws.forEach((d, c) => expect(Array.from(d)).toEqual(Array.from(cpu.draws[c]!)));
    } finally {
      gpu.dispose();
    }
  });

  it("the registry's 'vulkan' runner and prepareRun take a plan with transitions 'host' to the batched gradient", async () => {
    const viaRegistry = await prepareTransitionRunner("vulkan", compiled, plan);
    try {
      expect(viaRegistry.plan).toMatchObject({ chains, dtype: "f64", shape: "gradient", transitions: "host" });
      // The runner runs no transitions of its own.
      expect(() => viaRegistry.factory({} as never)).toThrow(SamplerOptionError);
    } finally {
      viaRegistry.dispose();
    }
    const placed = await prepareRun(compiled, { ...plan, backend: "vulkan" });
    try {
      expect(placed.detail).toMatch(/^GPU batched gradient: the method's transitions run on the host/);
      const res = sample(placed.density, { warmup: 5, draws: 5, seed: 1, method: "meads", transitionRunner: placed.transitionRunner! });
      expect(res.draws).toHaveLength(chains);
      res.draws.forEach((d) => d.forEach((v) => expect(Number.isFinite(v)).toBe(true)));
    } finally {
      placed.dispose();
    }
  });
});

// f32 on the device: the host's method in f64 over an f32 gradient. Its posterior is the CPU's
// within Monte Carlo error (|z| < 4 for every coordinate's mean, the MCSE from each run's draws).
describe.runIf(device !== undefined)("chees on the GPU's batched gradient in f32", () => {
  it("gives finite draws whose means are the f64 CPU run's within Monte Carlo error", async () => {
    const compiled = compileModel(eightSchools, data);
    const opts = { warmup: 150, draws: 100, seed: 11, method: "chees" } as const;
    // Another seed for the CPU: two independent runs, so that the z of their means' difference is a
    // fair test (with the same seed the f32 run follows the f64 one for a while, and z is near 0).
    const cpu = sample(await modelDensity(compiled), { ...opts, seed: 13, chains: 32 });
    const gpu = await prepareGpuGradient(compiled, { chains: 32, maxDepth: 10, metric: "diag", dtype: "f32", transitions: "host" });
    try {
      const res = sample(gpu.hostDensity(await modelDensity(compiled)), { ...opts, transitionRunner: gpu });
      res.draws.forEach((d) => d.forEach((v) => expect(Number.isFinite(v)).toBe(true)));
      for (let j = 0; j < res.dim; j++) {
        const a = coordinate(res, j);
        const b = coordinate(cpu, j);
        const z = (meanOf(a) - meanOf(b)) / Math.hypot(mcseMean(a), mcseMean(b));
        expect(Math.abs(z), `coordinate ${j}: z ${z}`).toBeLessThan(4);
      }
    } finally {
      gpu.dispose();
    }
  });
});

const coordinate = (r: SampleResult, j: number): Float64Array[] => r.draws.map((d) => Float64Array.from({ length: r.drawsDone }, (_, i) => d[i * r.dim + j]!));
const meanOf = (chains: Float64Array[]): number => chains.reduce((s, c) => s + c.reduce((a, x) => a + x, 0), 0) / chains.reduce((n, c) => n + c.length, 0);
