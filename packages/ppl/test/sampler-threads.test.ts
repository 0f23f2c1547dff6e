/**
 * Chains on worker threads: every chain's draws, statistics and adaptation are the bits the
 * single-threaded run gives it, whichever thread ran it; callbacks arrive in each chain's order;
 * errors keep their class; a stop keeps what was drawn.
 */
import { afterAll, describe, expect, it } from "vitest";
import { compileModel, data, halfCauchy, model, modelDensity, normal, type ModelDensity } from "../src/index.ts";
import { InitializationError, sample, sampleAsync, SamplerOptionError, type DrawInfo, type SampleOptions, type SampleResult } from "../src/sampler/index.ts";
import { sampleThreads, stopSamplerThreads } from "../src/sampler/threads/pool.ts";
import { add, mul } from "@ppl/tensor";

const eightSchools = model({
  name: "eight_schools_noncentered",
  data: { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) },
  build(m, d) {
    const mu = m.param("mu", normal(0, 5));
    const tau = m.param("tau", halfCauchy(0, 5));
    const thetaTrans = m.param("theta_trans", normal(0, 1), { shape: [d.J] });
    m.observe(d.y, normal(add(mu, mul(tau, thetaTrans)), d.sigma));
  },
});
const schools = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const density = (): Promise<ModelDensity> => modelDensity(compileModel(eightSchools, schools), { backend: "cpu" });

const bits = (a: Float64Array): number[] => Array.from(a);

function expectSameChains(got: SampleResult, want: SampleResult): void {
  expect(got.drawsDone).toBe(want.drawsDone);
  expect(got.warmupDone).toBe(want.warmupDone);
  for (let c = 0; c < want.settings.chains; c++) {
    expect(bits(got.draws[c]!), `chain ${c + 1} draws`).toEqual(bits(want.draws[c]!));
    for (const k of ["lp", "acceptStat", "stepSize", "treeDepth", "nLeapfrog", "divergent", "energy"] as const) {
      expect(bits(got.stats[c]![k]), `chain ${c + 1} ${k}`).toEqual(bits(want.stats[c]![k]));
    }
    expect(got.adaptation[c]!.stepSize).toBe(want.adaptation[c]!.stepSize);
    expect(bits(got.adaptation[c]!.invMetric)).toEqual(bits(want.adaptation[c]!.invMetric));
    expect(got.gradientEvaluations[c]).toBe(want.gradientEvaluations[c]);
  }
}

const short: SampleOptions = { chains: 4, warmup: 300, draws: 200, seed: 20251201 };

afterAll(() => stopSamplerThreads());

describe("threaded sampling", () => {
  it("worker threads draw what the single-threaded run draws, chain for chain", async () => {
    const d = await density();
    const want = sample(d, short);
    const got = await sampleThreads(d, { ...short, threads: 2 }, { callingThreadSamples: false });
    expect(got.threads!.chainThread.every((t) => t >= 0)).toBe(true);
    expect(got.threads!.chainThread.includes(0) || got.threads!.chainThread.includes(1)).toBe(true);
    expect(got.aborted).toBe(false);
    expectSameChains(got, want);
    // A later run reuses the workers, which hold the density already.
    expectSameChains(await sampleThreads(d, { ...short, seed: 7, threads: 2 }, { callingThreadSamples: false }), sample(d, { ...short, seed: 7 }));
  });

  it("the calling thread and the workers share the chains: same draws, and each chain's callbacks in order", async () => {
    const d = await density();
    const opts: SampleOptions = { chains: 6, warmup: 200, draws: 150, seed: 99, metric: "dense", firstChain: 3 };
    const seen = (): { draws: DrawInfo[][]; adapted: number[][] } => ({ draws: Array.from({ length: 6 }, () => []), adapted: Array.from({ length: 6 }, () => []) });
    const record = (log: ReturnType<typeof seen>): SampleOptions => ({
      onDraw: (x) => void log.draws[x.chain]!.push({ ...x, position: Float64Array.from(x.position) }),
      onAdapted: (c, a) => void log.adapted[c]!.push(a.stepSize, ...a.invMetric),
    });
    const one = seen();
    const want = sample(d, { ...opts, ...record(one) });
    const many = seen();
    const got = await sampleAsync(d, { ...opts, threads: 3, ...record(many) });
    expectSameChains(got, want);
    for (let c = 0; c < 6; c++) {
      expect(many.adapted[c]).toEqual(one.adapted[c]);
      expect(many.draws[c]!.map((x) => x.iteration)).toEqual(one.draws[c]!.map((x) => x.iteration));
      expect(many.draws[c]!.map((x) => [x.chainId, x.lp, x.energy, x.nLeapfrog, ...x.position])).toEqual(
        one.draws[c]!.map((x) => [x.chainId, x.lp, x.energy, x.nLeapfrog, ...x.position]),
      );
    }
  });

  it("per-chain initial values reach the thread that runs the chain", async () => {
    const d = await density();
    const init = Array.from({ length: 3 }, (_, c) => Float64Array.from({ length: d.dim }, (_, i) => 0.1 * (c + 1) * Math.cos(i)));
    const opts: SampleOptions = { chains: 3, warmup: 100, draws: 50, seed: 5, init };
    expectSameChains(await sampleThreads(d, { ...opts, threads: 3 }, { callingThreadSamples: false }), sample(d, opts));
  });

  it("an error in a worker is the sampler's error, with its chain", async () => {
    const d = await density();
    const init = Array.from({ length: 2 }, () => new Float64Array(d.dim));
    init[1]![0] = NaN;
    const run = sampleThreads(d, { chains: 2, warmup: 50, draws: 20, seed: 1, init, threads: 2 }, { callingThreadSamples: false });
    await expect(run).rejects.toBeInstanceOf(InitializationError);
    await expect(run).rejects.toThrow(/^chain 2: /);
  });

  it("a stop keeps the draws made so far, the same for every chain", async () => {
    const d = await density();
    const controller = new AbortController();
    let sampling = 0;
    const opts: SampleOptions = { chains: 4, warmup: 100, draws: 4000, seed: 3 };
    const got = await sampleThreads(
      d,
      { ...opts, threads: 2, signal: controller.signal, onDraw: (x) => void (!x.warmup && ++sampling === 200 && controller.abort()) },
      { callingThreadSamples: false },
    );
    expect(got.aborted).toBe(true);
    expect(got.drawsDone).toBeLessThan(4000);
    const full = sample(d, opts);
    for (let c = 0; c < 4; c++) {
      expect(got.draws[c]!.length).toBe(got.drawsDone * d.dim);
      expect(bits(got.draws[c]!)).toEqual(bits(full.draws[c]!.subarray(0, got.drawsDone * d.dim)));
    }
  });

  it("refuses threads where it cannot use them", async () => {
    const d = await density();
    expect(() => sample(d, { ...short, threads: 2 })).toThrow(SamplerOptionError);
    const plain = { dim: d.dim, logpGrad: d.logpGrad.bind(d) };
    await expect(sampleAsync(plain, { ...short, threads: 2 })).rejects.toThrow(/pass a density made by modelDensity/);
    await expect(sampleAsync(d, { ...short, threads: 0 })).rejects.toThrow(SamplerOptionError);
  });
});
