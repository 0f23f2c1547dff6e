/**
 * The inference layer: a method is pure functions over one chain's state, and every driver runs
 * any method. NUTS stepped one chain at a time through the layer draws what the sampler draws;
 * random-walk Metropolis (written against methods/layer.ts alone) runs on the calling thread and
 * on worker threads, the same bits on both, and its draws have the target's mean and variance
 * within their Monte Carlo error (|z| ≤ 4 for each of the four statistics).
 */
import { afterAll, describe, expect, it } from "vitest";
import { compileModel, mcseMean, model, modelDensity, normal, sample, sampleAsync, type SampleResult } from "../src/index.ts";
import { builtinMethods, nuts, oneChain, randomWalk, stepOnce } from "../src/inference.ts";
import { stopSamplerThreads } from "../src/sampler/threads/pool.ts";
import { sampleThreads } from "../src/sampler/threads/threaded-run.ts";

afterAll(() => stopSamplerThreads());

// Independent normals: a ~ N(1, 2²), b ~ N(−2, 0.5²); the unconstrained point is (a, b).
const MEANS = [1, -2];
const SDS = [2, 0.5];
const gaussian = model({
  name: "two_normals",
  data: {},
  build(m) {
    m.param("a", normal(MEANS[0]!, SDS[0]!));
    m.param("b", normal(MEANS[1]!, SDS[1]!));
  },
});
const density = () => modelDensity(compileModel(gaussian, {}), { backend: "cpu" });

// Coordinate j of every chain's draws, one array per chain.
const coordinate = (r: SampleResult, j: number, f: (x: number) => number = (x) => x): Float64Array[] =>
  r.draws.map((d) => Float64Array.from({ length: r.drawsDone }, (_, i) => f(d[i * r.dim + j]!)));
const meanOf = (chains: Float64Array[]): number => chains.reduce((s, c) => s + c.reduce((a, x) => a + x, 0), 0) / chains.reduce((n, c) => n + c.length, 0);

describe("the inference layer", () => {
  it("NUTS stepped one chain at a time through the layer draws what the sampler draws", async () => {
    const d = await density();
    const init = Float64Array.of(0.3, -1.7);
    const want = sample(d, { chains: 1, warmup: 0, draws: 5, seed: 17, init, stepSize: 0.4 });
    const chain = oneChain(d, init, 17);
    const state = nuts.init(chain, want.settings);
    for (let t = 0; t < 5; t++) {
      const info = stepOnce(nuts, state, chain, d, t, 0.4);
      expect(Array.from(chain.q)).toEqual(Array.from(want.draws[0]!.subarray(2 * t, 2 * t + 2)));
      expect(info.nLeapfrog).toBe(want.stats[0]!.nLeapfrog[t]);
      expect(info.acceptStat).toBe(want.stats[0]!.acceptStat[t]);
    }
  });

  it("a method given by name or as itself samples the same; an unknown name is refused", async () => {
    const d = await density();
    const opts = { chains: 2, warmup: 20, draws: 30, seed: 5, stepSize: 1 };
    expect(sample(d, { ...opts, method: "random-walk" }).draws).toEqual(sample(d, { ...opts, method: randomWalk }).draws);
    expect(sample(d, { ...opts, method: "hmc", hmcSteps: 4 }).draws).toEqual(sample(d, { ...opts, sampler: "hmc", hmcSteps: 4 }).draws);
    expect(() => sample(d, { ...opts, method: "gibbs" })).toThrow(/no method named 'gibbs'/);
    expect(Object.keys(builtinMethods)).toEqual(["nuts", "hmc", "random-walk", "chees", "chees-uniform", "meads"]);
  });

  it("random-walk Metropolis: one thread and worker threads draw the same, from the target", async () => {
    const d = await density();
    const opts = { chains: 4, warmup: 200, draws: 5000, seed: 20251207, stepSize: 1.2, method: "random-walk" };
    const one = await sampleAsync(d, opts);
    // Every chain on a worker thread (the calling thread samples none).
    const threaded = await sampleThreads(d, { ...opts, threads: 2 }, { callingThreadSamples: false });
    expect(threaded.threads!.chainThread.every((t) => t >= 1)).toBe(true);
    for (let c = 0; c < 4; c++) expect(Array.from(threaded.draws[c]!)).toEqual(Array.from(one.draws[c]!));
    // A random walk accepts a good share of its proposals, and reports one evaluation a transition.
    const accept = meanOf(one.stats.map((s) => s.acceptStat));
    expect(accept).toBeGreaterThan(0.2);
    expect(accept).toBeLessThan(0.9);
    expect(one.stats[0]!.nLeapfrog.every((n) => n === 1)).toBe(true);
    for (let j = 0; j < 2; j++) {
      const x = coordinate(one, j);
      const zMean = (meanOf(x) - MEANS[j]!) / mcseMean(x);
      const sq = coordinate(one, j, (v) => (v - MEANS[j]!) ** 2);
      const zVar = (meanOf(sq) - SDS[j]! ** 2) / mcseMean(sq);
      expect(Math.abs(zMean), `coordinate ${j} mean`).toBeLessThan(4);
      expect(Math.abs(zVar), `coordinate ${j} variance`).toBeLessThan(4);
    }
  });
});
