/**
 * The measured-cost fallback from a transition runner to the CPU sampler (fallback.ts): the chains
 * move with where they stand, so that a runner drawing what the CPU sampler draws gives, moved or
 * not, the CPU run's bits; a slow runner is left, a fast one kept; the decision reports its figures.
 */
import { afterAll, describe, expect, it } from "vitest";
import { compileModel, modelDensity, type ModelDensity } from "../src/index.ts";
import { seedKey } from "../src/random/streams.ts";
import {
  ChainBatch, SamplingRun, cpuGradientLowerBound, cpuIsFaster, driveBatch, trialSecondsPerGradient, fallbackIteration, NutsTransition, sample, sampleAsync, chainContext,
  type BatchedDensity, type FallbackDecision, type SampleOptions, type SampleResult, type PlannedRunner,
} from "../src/sampler/index.ts";
import { stopSamplerThreads } from "../src/sampler/threads/pool.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const schools = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const density = (): Promise<ModelDensity> => modelDensity(compileModel(eightSchools, schools), { backend: "cpu" });
const bits = (a: Float64Array): number[] => Array.from(a);

afterAll(() => stopSamplerThreads());

/**
 * A runner that takes the CPU sampler's own NUTS transitions on `density` (so its draws are the
 * CPU run's bits), but, as a GPU's runner does, leaves the batch's gradients stale and its lps
 * rounded to f32 between calls (keeping the true ones for its own next transition), and waits
 * `delayMs` a call as a slow device would. `calls` counts its calls.
 */
function hostRunner(density: BatchedDensity, delayMs: number, calls: { n: number }): PlannedRunner {
  // The plan of the runs below (opts: 4 chains, the default depth and metric), which the run takes.
  return {
    plan: { chains: 4, maxDepth: 10, metric: "diag", dtype: "f64", shape: "host" },
    factory: (ctx) => {
    const s = ctx.settings;
    let transitions: NutsTransition[] | null = null;
    let lp = new Float64Array(0), grad = new Float64Array(0);
    return {
      run(t, stepSizes, batch: ChainBatch, stats) {
        calls.n++;
        if (transitions === null) {
          transitions = Array.from({ length: s.chains }, (_, c) =>
            new NutsTransition(chainContext(batch, { row: c, id: s.firstChain + c }, seedKey(s.seed), ctx.metrics[c]!), { maxDepth: s.maxDepth, maxDeltaH: s.maxDeltaH }));
        } else {
          batch.lp.set(lp);
          batch.grad.set(grad);
        }
        for (let c = 0; c < s.chains; c++) batch.active[c] = transitions[c]!.begin(t, stepSizes[c]!) ? 1 : 0;
        driveBatch(density, batch, transitions);
        transitions.forEach((tr, c) => Object.assign(stats[c]!, { acceptStat: tr.acceptStat, treeDepth: tr.treeDepth, nLeapfrog: tr.nLeapfrog, divergent: tr.divergent, energy: tr.energy }));
        lp = Float64Array.from(batch.lp);
        grad = Float64Array.from(batch.grad);
        batch.grad.fill(0);
        for (let c = 0; c < s.chains; c++) batch.lp[c] = Math.fround(batch.lp[c]!);
        const until = performance.now() + delayMs;
        while (performance.now() < until);
      },
    };
  } };
}

function expectSameDraws(got: SampleResult, want: SampleResult): void {
  for (let c = 0; c < want.settings.chains; c++) {
    expect(bits(got.draws[c]!), `chain ${c + 1} draws`).toEqual(bits(want.draws[c]!));
    for (const k of ["acceptStat", "stepSize", "treeDepth", "nLeapfrog", "energy"] as const) {
      expect(bits(got.stats[c]![k]), `chain ${c + 1} ${k}`).toEqual(bits(want.stats[c]![k]));
    }
    expect(got.adaptation[c]!.stepSize).toBe(want.adaptation[c]!.stepSize);
    expect(bits(got.adaptation[c]!.invMetric)).toEqual(bits(want.adaptation[c]!.invMetric));
  }
}

const opts: SampleOptions = { chains: 4, warmup: 200, draws: 150, seed: 20261203 };

describe("falling back from a transition runner to the CPU sampler", () => {
  it("moves the chains with where they stand: the CPU run's bits, its lps evaluated again", async () => {
    const d = await density();
    const want = sample(d, opts);
    const calls = { n: 0 };
    const decisions: FallbackDecision[] = [];
    // Between two host steps (the metric update after iteration 99 reads the batch, which this
    // runner leaves stale between its calls as a device's runner does only within a block).
    const at = { after: 90, measureFrom: 75 };
    const got = sample(d, { ...opts, transitionRunner: hostRunner(d, 0, calls), fallback: { density: d, threads: 1, margin: 0, ...at, onDecision: (x) => decisions.push(x) } });
    expect(got.fallback?.switched).toBe(true);
    expect(got.fallback?.iteration).toBe(90);
    expect(decisions).toEqual([got.fallback]);
    // The runner ran the first 90 iterations only.
    expect(calls.n).toBe(90);
    expectSameDraws(got, want);
    // Sampling draws come from the CPU sampler: exact lps, not the runner's rounded ones.
    for (let c = 0; c < 4; c++) expect(bits(got.stats[c]!.lp)).toEqual(bits(want.stats[c]!.lp));
    // One more gradient a chain: its point evaluated again on the CPU density.
    got.gradientEvaluations.forEach((n, c) => expect(n).toBe(want.gradientEvaluations[c]! + 1));
  });

  it("goes on over the CPU sampler's threads through sampleAsync, with the same bits", async () => {
    const d = await density();
    const want = sample(d, opts);
    const got = await sampleAsync(d, { ...opts, transitionRunner: hostRunner(d, 0, { n: 0 }), fallback: { density: d, threads: 2, margin: 0, after: 90, measureFrom: 75 } });
    expect(got.fallback?.switched).toBe(true);
    expect(got.fallback?.threads).toBe(2);
    expectSameDraws(got, want);
    // The run's time includes the iterations the runner took.
    expect(got.timing.warmupSeconds + got.timing.samplingSeconds).toBeGreaterThan(0);
  });

  it("leaves a slow runner by measurement, and keeps one the CPU does not clearly beat", async () => {
    const d = await density();
    // 2 ms a call: far slower than eight schools' gradients on any CPU.
    const slow = await sampleAsync(d, { ...opts, transitionRunner: hostRunner(d, 2, { n: 0 }), fallback: { density: d, threads: 2 } });
    // Its 100 calls on the runner (200 ms) are part of the run's time, though the rest ran on threads.
    expect(slow.timing.warmupSeconds + slow.timing.samplingSeconds).toBeGreaterThan(0.2);
    expect(slow.fallback!.switched).toBe(true);
    expect(slow.fallback!.runnerSecondsPerGradient).toBeGreaterThan(1.5 * slow.fallback!.cpuSecondsPerGradient);
    const calls = { n: 0 };
    const kept = await sampleAsync(d, { ...opts, transitionRunner: hostRunner(d, 0, calls), fallback: { density: d, threads: 1, margin: Infinity } });
    expect(kept.fallback!.switched).toBe(false);
    expect(calls.n).toBe(opts.warmup! + opts.draws!);
    // Kept on the runner, the sampling lps are the runner's (rounded) ones.
    expect(bits(kept.stats[0]!.lp)).toEqual(bits(kept.stats[0]!.lp.map((x) => Math.fround(x))));
  });

  it("does not time the CPU when its lower bound already loses", async () => {
    const d = await density();
    let cpuCalls = 0;
    const counted: BatchedDensity = { dim: d.dim, logpGrad: (q, lp, g, a) => (cpuCalls++, d.logpGrad(q, lp, g, a)) };
    const res = sample(d, { ...opts, warmup: 100, draws: 20, transitionRunner: hostRunner(d, 0, { n: 0 }), fallback: { density: counted, threads: 2, cpuLowerBound: 1 } });
    expect(res.fallback).toMatchObject({ iteration: 100, timed: false, switched: false, cpuSecondsPerGradient: 0.5, threads: 2 });
    expect(cpuCalls).toBe(0);
    // A bound the runner does not beat leaves the decision to the timing.
    const timed = sample(d, { ...opts, warmup: 100, draws: 20, transitionRunner: hostRunner(d, 0, { n: 0 }), fallback: { density: counted, threads: 1, cpuLowerBound: 1e-12 } });
    expect(timed.fallback!.timed).toBe(true);
    expect(cpuCalls).toBeGreaterThan(0);
  });

  it("without a runner, or without options.fallback, nothing is decided", async () => {
    const d = await density();
    expect(sample(d, { ...opts, warmup: 100, draws: 20, fallback: { density: d, threads: 1, margin: 0 } }).fallback).toBeUndefined();
    expect(sample(d, { ...opts, warmup: 100, draws: 20, transitionRunner: hostRunner(d, 0, { n: 0 }) }).fallback).toBeUndefined();
  });
});

describe("the fallback's rules", () => {
  const fb = { density: { dim: 1, logpGrad() {} }, threads: 1 };
  it("measures the runner over whole warmup blocks: the second, or a warmup's only one, or a tenth of the draws", () => {
    expect(fallbackIteration(fb, 1000, 1000, [99, 149, 249, 449, 949, 999])).toEqual({ from: 100, at: 150 });
    expect(fallbackIteration(fb, 1000, 1000, [999, 99, 149])).toEqual({ from: 100, at: 150 });
    expect(fallbackIteration(fb, 20, 1000, [19])).toEqual({ from: 0, at: 20 });
    expect(fallbackIteration(fb, 0, 1000, [])).toEqual({ from: 0, at: 100 });
    expect(fallbackIteration({ ...fb, after: 7 }, 1000, 1000, [99])).toEqual({ from: 0, at: 7 });
    expect(fallbackIteration({ ...fb, after: 7, measureFrom: 9 }, 1000, 1000, [99])).toEqual({ from: 6, at: 7 });
  });

  it("a run's warmup blocks end where Stan's windows do", () => {
    expect(new SamplingRun({ dim: 1, logpGrad() {} }, { warmup: 1000, chains: 1 }).hostSteps).toEqual([99, 149, 249, 449, 949, 999]);
  });

  it("takes the CPU only when it is faster by the margin", () => {
    expect(cpuIsFaster(3e-6, 1e-6)).toBe(true);
    expect(cpuIsFaster(1.4e-6, 1e-6)).toBe(false);
    expect(cpuIsFaster(1.4e-6, 1e-6, 1.2)).toBe(true);
    expect(cpuIsFaster(0, 1e-6)).toBe(false);
    expect(cpuIsFaster(Infinity, 1e-6)).toBe(true);
    expect(cpuIsFaster(1e-3, Infinity)).toBe(false);
  });

  it("times a trial by its iterations in the second half of its time", () => {
    // Iterations of 10 gradients: the first two slow (10 ms), then 1 ms each; over all 40 ms the
    // mean would be 1.8e-4 s a gradient, over the second half 1e-4. The clock is the test's own:
    // each iteration moves it on by its cost.
    let k = 0;
    let ms = 0;
    const clock = () => ms;
    const wait = (cost: number) => void (ms += cost);
    const perGradient = trialSecondsPerGradient(() => (wait(k++ < 2 ? 10 : 1), 10), 0.04, clock);
    expect(perGradient).toBeCloseTo(1e-4, 12);
    // A run that ends first: what it did; none at all: infinitely slow.
    let left = 1;
    expect(trialSecondsPerGradient(() => (left-- > 0 ? (wait(2), 4) : null), 10, clock)).toBeCloseTo(5e-4, 12);
    expect(trialSecondsPerGradient(() => null, 1, clock)).toBe(Infinity);
  });

  it("bounds a CPU gradient below by its data read once", () => {
    expect(cpuGradientLowerBound(10_000_000)).toBeCloseTo(1.25e-3, 12);
    expect(cpuGradientLowerBound(0)).toBe(0);
  });
});
