/**
 * A run that starts on the CPU while its runner is prepared (pending-runner.ts): the chains move to
 * the runner with where they stand, so that a runner drawing what the CPU sampler draws gives,
 * moved or kept, the CPU run's bits; a runner that is not faster is left alone, one that fails to
 * prepare leaves the run on the CPU, and the decision reports its figures.
 */
import { afterAll, describe, expect, it } from "vitest";
import { compileModel, modelDensity, type ModelDensity } from "../src/index.ts";
import { seedKey } from "../src/random/streams.ts";
import {
  chainContext, driveBatch, NutsTransition, runnerBlock, sample, sampleAsync, SamplingRun,
  type BatchedDensity, type PendingRunnerDecision, type ReadyRunner, type SampleOptions, type SampleResult, type PlannedRunner,
} from "../src/sampler/index.ts";
import { secondHalfSecondsPerGradient } from "../src/sampler/fallback.ts";
import { firstMetricUpdate, runSecondsPerGradient } from "../src/sampler/pending-runner.ts";
import { ProgressPace } from "../src/sampler/pace.ts";
import { stopSamplerThreads } from "../src/sampler/threads/pool.ts";
import { sampleThreads } from "../src/sampler/threads/threaded-run.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const schools = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const density = (): Promise<ModelDensity> => modelDensity(compileModel(eightSchools, schools), { backend: "cpu" });
const bits = (a: Float64Array): number[] => Array.from(a);

afterAll(() => stopSamplerThreads());

/**
 * A runner that takes the CPU sampler's own NUTS transitions on `density`, so that its draws are the
 * CPU run's bits, waiting `delayMs` a call as a slow device would. `calls` records the iterations
 * it was called for.
 */
function cpuLikeRunner(density: BatchedDensity, delayMs: number, calls: number[]): PlannedRunner {
  // The plan of the runs below (opts: 4 chains, the default depth and metric), which the run takes.
  return {
    plan: { chains: 4, maxDepth: 10, metric: "diag", dtype: "f64", shape: "host" },
    factory: (ctx) => {
    const s = ctx.settings;
    let transitions: NutsTransition[] | null = null;
    return {
      run(t, stepSizes, batch, stats) {
        calls.push(t);
        transitions ??= Array.from({ length: s.chains }, (_, c) =>
          new NutsTransition(chainContext(batch, { row: c, id: s.firstChain + c }, seedKey(s.seed), ctx.metrics[c]!), { maxDepth: s.maxDepth, maxDeltaH: s.maxDeltaH }));
        for (let c = 0; c < s.chains; c++) batch.active[c] = transitions[c]!.begin(t, stepSizes[c]!) ? 1 : 0;
        driveBatch(density, batch, transitions);
        transitions.forEach((tr, c) => Object.assign(stats[c]!, { acceptStat: tr.acceptStat, treeDepth: tr.treeDepth, nLeapfrog: tr.nLeapfrog, divergent: tr.divergent, energy: tr.energy }));
        const until = performance.now() + delayMs;
        while (performance.now() < until);
      },
    };
  } };
}

function expectSameDraws(got: SampleResult, want: SampleResult): void {
  for (let c = 0; c < want.settings.chains; c++) {
    expect(bits(got.draws[c]!), `chain ${c + 1} draws`).toEqual(bits(want.draws[c]!));
    for (const k of ["lp", "acceptStat", "stepSize", "treeDepth", "nLeapfrog", "energy"] as const) {
      expect(bits(got.stats[c]![k]), `chain ${c + 1} ${k}`).toEqual(bits(want.stats[c]![k]));
    }
    expect(got.adaptation[c]!.stepSize).toBe(want.adaptation[c]!.stepSize);
    expect(bits(got.adaptation[c]!.invMetric)).toEqual(bits(want.adaptation[c]!.invMetric));
  }
}

const opts: SampleOptions = { chains: 4, warmup: 200, draws: 150, seed: 20261204 };
const ready = (d: BatchedDensity, delayMs: number, calls: number[], blockIterations?: number): ReadyRunner =>
  ({ transitionRunner: cpuLikeRunner(d, delayMs, calls), density: d, ...(blockIterations !== undefined ? { blockIterations } : {}) });

describe("starting on the CPU while the runner is prepared", () => {
  it("moves the chains to a runner that is ready and not beaten: the CPU run's bits, every draw reported once", async () => {
    const d = await density();
    const want = sample(d, opts);
    const calls: number[] = [];
    const decisions: PendingRunnerDecision[] = [];
    const seen: number[] = [];
    const got = await sampleAsync(d, {
      ...opts,
      onDraw: (x) => seen.push(x.iteration * 4 + x.chain),
      pendingRunner: { ready: Promise.resolve(ready(d, 0, calls, 10)), margin: Infinity, probeSeconds: 0, startAfterSeconds: 0, onDecision: (x) => decisions.push(x) },
    });
    const decision = got.pendingRunner!;
    expect(decisions).toEqual([decision]);
    expect(decision).toMatchObject({ reason: "measured", moved: true, threads: 1 });
    // Once two iterations are timed (probeSeconds 0), before warmup's first metric update: a runner that wins is taken at once.
    expect(decision.iteration).toBe(2);
    expect(decision.runnerSecondsPerGradient).toBeGreaterThan(0);
    expect(decision.cpuSecondsPerGradient).toBeGreaterThan(0);
    // Decided after the trial, within the run.
    expect(decision.seconds).toBeGreaterThan(0);
    expect(decision.seconds).toBeLessThanOrEqual(got.timing.warmupSeconds + got.timing.samplingSeconds + 1);
    // The trial ran from the decision's iteration (blocks of 1, 4, 16 and 64 iterations at most,
    // each ended where a warmup block ends at a metric update), then the run itself from there.
    const from = decision.iteration;
    const n = calls.indexOf(from, 1);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(1 + 4 + 16 + 64);
    expect(calls).toEqual([...Array.from({ length: n }, (_, k) => from + k), ...Array.from({ length: 350 - from }, (_, k) => from + k)]);
    expectSameDraws(got, want);
    // The trial's draws are thrown away: each iteration of each chain reported once, in order.
    expect(seen).toEqual(Array.from({ length: 350 * 4 }, (_, k) => k));
  });

  it("keeps the CPU when it is faster by the margin, going on over its threads with the same bits", async () => {
    const d = await density();
    const want = sample(d, opts);
    const calls: number[] = [];
    const got = await sampleAsync(d, { ...opts, threads: 2, pendingRunner: { ready: Promise.resolve(ready(d, 0, calls)), margin: 0, probeSeconds: 0, startAfterSeconds: 0 } });
    expect(got.pendingRunner).toMatchObject({ reason: "measured", moved: false, threads: 2 });
    // Beaten before warmup's first metric update (after iteration 99), the runner is tried again
    // after it, and the CPU is kept only then.
    const at = got.pendingRunner!.iteration;
    expect(at).toBe(100);
    // Only the trials ran on the runner: blocks of at most 1, 4, 16 and 64 iterations each.
    const last = calls.indexOf(at);
    expect(last).toBeGreaterThan(0);
    expect(calls[0]).toBe(2);
    expect(calls.length - last).toBeLessThanOrEqual(85);
    expect(calls.slice(last)).toEqual(Array.from({ length: calls.length - last }, (_, k) => at + k));
    expectSameDraws(got, want);
    got.gradientEvaluations.forEach((n, c) => expect(n).toBe(want.gradientEvaluations[c]!));
  });

  it("leaves a slow runner by measurement", async () => {
    const d = await density();
    // 3 ms a call: far slower than eight schools' gradients on any CPU.
    const got = await sampleAsync(d, { ...opts, pendingRunner: { ready: Promise.resolve(ready(d, 3, [])), probeSeconds: 0, startAfterSeconds: 0 } });
    expect(got.pendingRunner!.moved).toBe(false);
    expect(got.pendingRunner!.iteration).toBeGreaterThanOrEqual(100);
    // Two trials (one before iteration 100, one after) of at least a 3 ms call each, counted in the run's time.
    expect(got.pendingRunner!.trialSeconds).toBeGreaterThanOrEqual(0.006);
    expect(got.timing.warmupSeconds).toBeGreaterThan(got.pendingRunner!.trialSeconds!);
    expect(got.pendingRunner!.runnerSecondsPerGradient).toBeGreaterThan(2 * got.pendingRunner!.cpuSecondsPerGradient);
  });

  it("takes a runner that wins before warmup's first metric update at once", async () => {
    const d = await density();
    const got = await sampleAsync(d, { ...opts, pendingRunner: { ready: Promise.resolve(ready(d, 0, [])), margin: Infinity, probeSeconds: 0, startAfterSeconds: 0 } });
    expect(got.pendingRunner!.moved).toBe(true);
    expect(got.pendingRunner!.iteration).toBe(2);
  });

  it("a preparation that fails leaves the run on the CPU, and says why", async () => {
    const d = await density();
    const want = sample(d, opts);
    const got = await sampleAsync(d, { ...opts, pendingRunner: { ready: Promise.reject(new Error("the driver refused the kernel")), probeSeconds: 0, startAfterSeconds: 0 } });
    expect(got.pendingRunner).toMatchObject({ reason: "failed", moved: false, error: "the driver refused the kernel" });
    // Seen at the run's first yield to the event loop, long before its end.
    expect(got.pendingRunner!.iteration).toBeLessThan(350);
    expectSameDraws(got, want);
  });

  it("a run that ends before the runner is ready ends on the CPU", async () => {
    const d = await density();
    const want = sample(d, opts);
    const never = new Promise<ReadyRunner>(() => {});
    const got = await sampleAsync(d, { ...opts, pendingRunner: { ready: never } });
    expect(got.pendingRunner).toMatchObject({ reason: "ended", iteration: 350, moved: false });
    expectSameDraws(got, want);
  });

  it("an interrupted run stops between iterations, with its decision", async () => {
    const d = await density();
    const controller = new AbortController();
    const got = await sampleAsync(d, {
      ...opts, signal: controller.signal,
      onDraw: (x) => { if (x.iteration === 30) controller.abort(); },
      pendingRunner: { ready: new Promise<ReadyRunner>(() => {}) },
    });
    expect(got.aborted).toBe(true);
    expect(got.warmupDone).toBe(31);
    expect(got.pendingRunner).toMatchObject({ reason: "ended", iteration: 31 });
  });

  it("is refused by sample() and beside a transition runner", async () => {
    const d = await density();
    const pendingRunner = { ready: new Promise<ReadyRunner>(() => {}) };
    expect(() => sample(d, { ...opts, pendingRunner })).toThrow(/sampleAsync/);
    await expect(sampleAsync(d, { ...opts, pendingRunner, transitionRunner: cpuLikeRunner(d, 0, []) })).rejects.toThrow(/transitionRunner/);
  });
});

describe("starting on the CPU's threads while the runner is prepared", () => {
  // Two threads: the CPU phase runs on the thread pool, paused (every thread after one iteration,
  // its chains handed back) for the trial.
  const two: SampleOptions = { ...opts, threads: 2 };

  it("moves to a runner that wins with the CPU run's bits, every draw reported once", async () => {
    const d = await density();
    const want = sample(d, opts);
    const calls: number[] = [];
    const seen: number[] = [];
    const got = await sampleAsync(d, {
      ...two, onDraw: (x) => seen.push(x.iteration * 4 + x.chain),
      pendingRunner: { ready: Promise.resolve(ready(d, 0, calls, 10)), margin: Infinity, probeSeconds: 0, startAfterSeconds: 0 },
    });
    expect(got.pendingRunner).toMatchObject({ reason: "measured", moved: true, threads: 2, iteration: 2 });
    expect(got.pendingRunner!.cpuSecondsPerGradient).toBeGreaterThan(0);
    expect(calls.slice(-(350 - 2))).toEqual(Array.from({ length: 348 }, (_, k) => 2 + k));
    expectSameDraws(got, want);
    expect(seen).toEqual(Array.from({ length: 350 * 4 }, (_, k) => k));
  });

  it("keeps the CPU that wins after warmup's first metric update, with the same bits", async () => {
    const d = await density();
    const want = sample(d, opts);
    const calls: number[] = [];
    const got = await sampleAsync(d, { ...two, pendingRunner: { ready: Promise.resolve(ready(d, 0, calls)), margin: 0, probeSeconds: 0, startAfterSeconds: 0 } });
    expect(got.pendingRunner).toMatchObject({ reason: "measured", moved: false, threads: 2 });
    expect(calls[0]).toBe(2);
    expect(got.pendingRunner!.iteration).toBeGreaterThanOrEqual(100);
    expectSameDraws(got, want);
    got.gradientEvaluations.forEach((n, c) => expect(n).toBe(want.gradientEvaluations[c]!));
  });

  it("after a lost trial the workers take every chain, are paused by their progress, and keep them when the CPU wins", async () => {
    const d = await density();
    const long: SampleOptions = { ...two, warmup: 1500, draws: 500 };
    const want = sample(d, { ...long, threads: 1 });
    // Two warm workers holding the density: on a run this short, starting them would take longer than the run.
    await sampleThreads(d, { ...opts, threads: 2 }, { callingThreadSamples: false });
    const calls: number[] = [];
    const got = await sampleAsync(d, { ...long, pendingRunner: { ready: Promise.resolve(ready(d, 0, calls)), margin: 0, probeSeconds: 0, startAfterSeconds: 0 } });
    expect(got.pendingRunner).toMatchObject({ reason: "measured", moved: false, threads: 2 });
    // Tried at iteration 2 on the calling thread, then where every worker stopped: warmup's first metric update.
    expect(calls[0]).toBe(2);
    expect(got.pendingRunner!.iteration).toBe(100);
    // Kept, the run goes on over both threads (the calling thread hands a group out at once).
    expect(got.threads!.used).toBe(2);
    expectSameDraws(got, want);
  });

  it("a failed preparation or a run that ends first stays on the CPU, with the same bits", async () => {
    const d = await density();
    const want = sample(d, opts);
    const failed = await sampleAsync(d, { ...two, pendingRunner: { ready: Promise.reject(new Error("no kernel")), probeSeconds: 0, startAfterSeconds: 0 } });
    expect(failed.pendingRunner).toMatchObject({ reason: "failed", moved: false, error: "no kernel" });
    expectSameDraws(failed, want);
    const ended = await sampleAsync(d, { ...two, pendingRunner: { ready: new Promise<ReadyRunner>(() => {}) } });
    expect(ended.pendingRunner).toMatchObject({ reason: "ended", iteration: 350, moved: false, threads: 2 });
    expectSameDraws(ended, want);
  });

  it("an interrupted run stops between iterations, with its decision", async () => {
    const d = await density();
    const controller = new AbortController();
    const got = await sampleAsync(d, {
      ...two, signal: controller.signal,
      onDraw: (x) => { if (x.iteration === 30) controller.abort(); },
      pendingRunner: { ready: new Promise<ReadyRunner>(() => {}) },
    });
    expect(got.aborted).toBe(true);
    expect(got.warmupDone).toBeGreaterThanOrEqual(31);
    expect(got.warmupDone).toBeLessThan(200);
    expect(got.pendingRunner).toMatchObject({ reason: "ended" });
  });
});

describe("starting the runner's preparation only for a run long enough to gain from it", () => {
  for (const threads of [1, 2]) {
    it(`a run shorter than startAfterSeconds never starts it (${threads} thread${threads > 1 ? "s" : ""}); a longer one starts it once`, async () => {
      const d = await density();
      const want = sample(d, opts);
      let calls = 0;
      const starts = () => (calls++, Promise.resolve(ready(d, 0, [])));
      const short = await sampleAsync(d, { ...opts, threads, pendingRunner: { ready: starts, startAfterSeconds: 1e6 } });
      expect(calls).toBe(0);
      expect(short.pendingRunner).toMatchObject({ reason: "short", moved: false });
      expectSameDraws(short, want);
      const long = await sampleAsync(d, { ...opts, threads, pendingRunner: { ready: starts, startAfterSeconds: 0, margin: Infinity, probeSeconds: 0 } });
      expect(calls).toBe(1);
      expect(long.pendingRunner).toMatchObject({ reason: "measured", moved: true });
      expectSameDraws(long, want);
    });
  }

  it("a runner ready when too little work is left is never tried: the run ends on the CPU", async () => {
    const d = await density();
    const want = sample(d, opts);
    for (const threads of [1, 2]) {
      const calls: number[] = [];
      const got = await sampleAsync(d, { ...opts, threads, pendingRunner: { ready: Promise.resolve(ready(d, 0, calls)), margin: Infinity, probeSeconds: 0, startAfterSeconds: 1e6 } });
      expect(got.pendingRunner).toMatchObject({ reason: "ended", moved: false });
      expect(calls).toEqual([]);
      expectSameDraws(got, want);
    }
  });

  it("a preparation that throws at its start leaves the run on the CPU", async () => {
    const d = await density();
    const got = await sampleAsync(d, { ...opts, pendingRunner: { ready: () => { throw new Error("no device"); }, startAfterSeconds: 0 } });
    expect(got.pendingRunner).toMatchObject({ reason: "failed", error: "no device" });
    expect(got.drawsDone).toBe(opts.draws);
  });
});

describe("the pending runner's rules", () => {
  it("splits a run into a block runner's blocks: warmup blocks end at the host's steps", () => {
    const host = new SamplingRun({ dim: 1, logpGrad() {} }, { warmup: 1000, chains: 1 }).hostSteps;
    expect(runnerBlock(0, 1000, 2000, host, 100)).toBe(100);
    expect(runnerBlock(98, 1000, 2000, host, 100)).toBe(2);
    expect(runnerBlock(100, 1000, 2000, host, 100)).toBe(50);
    expect(runnerBlock(990, 1000, 2000, host, 100)).toBe(10);
    expect(runnerBlock(1000, 1000, 2000, host, 100)).toBe(100);
    expect(runnerBlock(1950, 1000, 2000, host, 100)).toBe(50);
  });

  it("keeps the CPU no earlier than after warmup's first metric update", () => {
    expect(firstMetricUpdate([99, 149, 249, 449, 949, 999], 1000)).toBe(100);
    expect(firstMetricUpdate([99, 149, 199], 200)).toBe(100);
    expect(firstMetricUpdate([19], 20)).toBe(0);
    expect(firstMetricUpdate([], 0)).toBe(0);
  });

  it("estimates a run's cost a gradient from the trial's last two blocks: a fixed cost a block, shared over the run's longer blocks", () => {
    // 2 ms a block plus 1 µs a gradient, 10 gradients an iteration: blocks of 4 and 16 iterations.
    const block = (iterations: number) => ({ iterations, gradients: 10 * iterations, seconds: 2e-3 + 1e-6 * 10 * iterations });
    expect(runSecondsPerGradient([block(4), block(16)], 100)).toBeCloseTo(1e-6 + 2e-3 / 1000, 12);
    // A run in blocks no longer than the trial's last: that block's mean.
    expect(runSecondsPerGradient([block(4), block(16)], 16)).toBeCloseTo(block(16).seconds / 160, 12);
    // One block, or blocks too alike or timed out of order: the last block's mean.
    expect(runSecondsPerGradient([block(16)], 100)).toBeCloseTo(block(16).seconds / 160, 12);
    expect(runSecondsPerGradient([block(16), block(17)], 100)).toBeCloseTo(block(17).seconds / 170, 12);
    expect(runSecondsPerGradient([block(4), { ...block(16), seconds: 1e-3 }], 100)).toBeCloseTo(1e-3 / 160, 12);
    expect(runSecondsPerGradient([], 100)).toBe(Infinity);
  });

  it("projects a run's rest from the later half of its time, not from its first, slowest iterations", () => {
    const p = new ProgressPace();
    // 20 ms for the first iteration, then 0.1 ms each: at 80 ms, 601 iterations done.
    p.add(0, 0);
    p.add(0.02, 1);
    for (let i = 1; i <= 600; i++) p.add(0.02 + i * 1e-4, 1 + i);
    expect(p.secondsPerIteration(0.08, 601)).toBeCloseTo(1e-4, 8);
    // Too early to tell: NaN.
    const q = new ProgressPace();
    q.add(0, 0);
    expect(q.secondsPerIteration(0.03, 5)).toBeNaN();
  });

  it("times the CPU by its iterations in the second half of their time", () => {
    // Two slow iterations then fast ones: only the fast ones count.
    expect(secondHalfSecondsPerGradient([0.01, 0.01, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001], new Array(20).fill(10))).toBeCloseTo(1e-4, 12);
    expect(secondHalfSecondsPerGradient([], [])).toBe(Infinity);
    expect(secondHalfSecondsPerGradient([0.1], [0])).toBe(Infinity);
  });
});
