/**
 * A method of the user's own, written from the public inference layer alone
 * (fixtures/methods/toy-random-walk.mjs imports only @ppl/ppl/inference), runs on one chain in the
 * calling thread and on worker threads, which import it from its module (SamplingMethod.source):
 * the same bits on both, and its draws have the Gaussian target's mean and variance within their
 * Monte Carlo error (|z| ≤ 4 for each of the four statistics). A method without a source runs in
 * the calling thread, and a thread driver asked to run it says what is missing.
 */
import { afterAll, describe, expect, it } from "vitest";
import { compileModel, mcseMean, model, modelDensity, normal, sample, sampleAsync, SamplerOptionError, type SampleResult } from "../src/index.ts";
import type { SamplingMethod } from "../src/inference.ts";
import { stopSamplerThreads } from "../src/sampler/threads/pool.ts";
import { sampleThreads } from "../src/sampler/threads/threaded-run.ts";
import { toyRandomWalk } from "./fixtures/methods/toy-random-walk.mjs";

afterAll(() => stopSamplerThreads());

// Independent normals: a ~ N(0.5, 1.5²), b ~ N(3, 0.8²); the unconstrained point is (a, b).
const MEANS = [0.5, 3];
const SDS = [1.5, 0.8];
const gaussian = model({
  name: "two_normals",
  data: {},
  build(m) {
    m.param("a", normal(MEANS[0]!, SDS[0]!));
    m.param("b", normal(MEANS[1]!, SDS[1]!));
  },
});
const density = () => modelDensity(compileModel(gaussian, {}), { backend: "cpu" });
const method = toyRandomWalk;

const coordinate = (r: SampleResult, j: number, f: (x: number) => number = (x) => x): Float64Array[] =>
  r.draws.map((d) => Float64Array.from({ length: r.drawsDone }, (_, i) => f(d[i * r.dim + j]!)));
const meanOf = (chains: Float64Array[]): number => chains.reduce((s, c) => s + c.reduce((a, x) => a + x, 0), 0) / chains.reduce((n, c) => n + c.length, 0);

describe("a method of the user's own, through the public inference layer", () => {
  it("runs on one chain, and on worker threads that import it, the same bits; its draws are the target's", async () => {
    const d = await density();
    const opts = { chains: 4, warmup: 100, draws: 4000, seed: 20261207, stepSize: 1.5, method };
    const oneChain = sample(d, { ...opts, chains: 1 });
    const calling = sample(d, opts);
    // Every chain on a worker thread (the calling thread samples none): the workers import the method.
    const threaded = await sampleThreads(d, { ...opts, threads: 2 }, { callingThreadSamples: false });
    expect(threaded.threads!.chainThread.every((t) => t >= 1)).toBe(true);
    expect(Array.from(oneChain.draws[0]!)).toEqual(Array.from(calling.draws[0]!));
    for (let c = 0; c < 4; c++) expect(Array.from(threaded.draws[c]!), `chain ${c + 1}`).toEqual(Array.from(calling.draws[c]!));
    const accept = meanOf(calling.stats.map((s) => s.acceptStat));
    expect(accept).toBeGreaterThan(0.2);
    expect(accept).toBeLessThan(0.9);
    for (let j = 0; j < 2; j++) {
      const x = coordinate(calling, j);
      const zMean = (meanOf(x) - MEANS[j]!) / mcseMean(x);
      const sq = coordinate(calling, j, (v) => (v - MEANS[j]!) ** 2);
      const zVar = (meanOf(sq) - SDS[j]! ** 2) / mcseMean(sq);
      expect(Math.abs(zMean), `coordinate ${j} mean`).toBeLessThan(4);
      expect(Math.abs(zVar), `coordinate ${j} variance`).toBeLessThan(4);
    }
  });

  it("without a source it runs in the calling thread; the thread driver names what is missing", async () => {
    const d = await density();
    const { source: _source, ...own } = toyRandomWalk;
    const local = own as SamplingMethod<unknown>;
    const opts = { chains: 2, warmup: 10, draws: 20, seed: 3, stepSize: 1.5 };
    const res = await sampleAsync(d, { ...opts, method: local, threads: 2 });
    expect(res.threads).toBeUndefined();
    expect(Array.from(res.draws[1]!)).toEqual(Array.from(sample(d, { ...opts, method }).draws[1]!));
    const refused = sampleThreads(d, { ...opts, method: local, threads: 2 }, { callingThreadSamples: false });
    await expect(refused).rejects.toThrow(SamplerOptionError);
    await expect(sampleThreads(d, { ...opts, method: local, threads: 2 }, { callingThreadSamples: false })).rejects.toThrow(/worker threads cannot find method 'toy-random-walk': give it a source/);
  });
});
