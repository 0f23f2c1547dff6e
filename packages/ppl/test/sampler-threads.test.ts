/**
 * Chains on worker threads: every chain's draws, statistics and adaptation are the bits the
 * single-threaded run gives it, whichever thread ran it; callbacks arrive in each chain's order;
 * errors keep their class; a stop keeps what was drawn.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { compileModel, modelDensity, type ModelDensity } from "../src/index.ts";
import {
  InitializationError, resolveSettings, sample, sampleAsync, SamplerOptionError, SamplingRun, type DrawInfo, type SampleOptions, type SampleResult,
} from "../src/sampler/index.ts";
import type { RunState } from "../src/sampler/run-state.ts";
import { chainRangeOptions } from "../src/sampler/settings.ts";
import { stopSamplerThreads } from "../src/sampler/threads/pool.ts";
import { sampleThreads, sampleThreadsPausable } from "../src/sampler/threads/threaded-run.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

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

describe("handing chains over between iterations", () => {
  it("rows of a run handed over at any iteration and continued as runs of their own draw what the run draws", async () => {
    const d = await density();
    const base: SampleOptions = { chains: 3, warmup: 160, draws: 40, seed: 11 };
    for (const extra of [{}, { metric: "dense" as const }, { sampler: "hmc" as const, hmcSteps: 5 }]) {
      const opts = { ...base, ...extra };
      const want = sample(d, opts);
      const s = resolveSettings(opts);
      // Before the first step, in the initial buffer, in and at the end of slow windows, at the end of warmup, while sampling.
      for (const at of [0, 1, 74, 75, 99, 100, 159, 160, 170]) {
        const run = new SamplingRun(d, opts);
        for (let t = 0; t < at; t++) run.step();
        const parts = [{ first: 0, count: 1 }, { first: 1, count: 2 }].map(({ first, count }) => {
          const part = new SamplingRun(d, chainRangeOptions(opts, s, first, count));
          part.restore(run.handOver(first, count));
          while (!part.done) part.step();
          return part.result(false);
        });
        for (const [c, part, row] of [[0, parts[0]!, 0], [1, parts[1]!, 0], [2, parts[1]!, 1]] as const) {
          expect(bits(part.draws[row]!), `${JSON.stringify(extra)} at ${at}, chain ${c + 1}`).toEqual(bits(want.draws[c]!));
          expect(bits(part.stats[row]!.energy)).toEqual(bits(want.stats[c]!.energy));
          expect(part.adaptation[row]!.stepSize).toBe(want.adaptation[c]!.stepSize);
          expect(bits(part.adaptation[row]!.invMetric)).toEqual(bits(want.adaptation[c]!.invMetric));
          expect(part.gradientEvaluations[row]).toBe(want.gradientEvaluations[c]);
        }
      }
    }
  });
});

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

  it("with the calling thread sampling too: the same draws, and each chain's callbacks in order", async () => {
    const d = await density();
    const opts: SampleOptions = { chains: 6, warmup: 600, draws: 400, seed: 99, metric: "dense", firstChain: 3 };
    const seen = (): { draws: DrawInfo[][]; adapted: number[][] } => ({ draws: Array.from({ length: 6 }, () => []), adapted: Array.from({ length: 6 }, () => []) });
    const record = (log: ReturnType<typeof seen>): SampleOptions => ({
      onDraw: (x) => void log.draws[x.chain]!.push({ ...x, position: Float64Array.from(x.position) }),
      onAdapted: (c, a) => void log.adapted[c]!.push(a.stepSize, ...a.invMetric),
    });
    const one = seen();
    const want = sample(d, { ...opts, ...record(one) });
    const many = seen();
    // The calling thread hands chains over to the workers in the middle of warmup, with where they stand.
    const got = await sampleThreads(d, { ...opts, threads: 3, ...record(many) }, { handOverAt: 130 });
    expect(new Set(got.threads!.chainThread)).toEqual(new Set([0, 1, 2]));
    expectSameChains(got, want);
    // The public entry point, which keeps a run this short on the calling thread.
    expectSameChains(await sampleAsync(d, { ...opts, threads: 3 }), want);
    for (let c = 0; c < 6; c++) {
      expect(many.adapted[c]).toEqual(one.adapted[c]);
      expect(many.draws[c]!.map((x) => x.iteration)).toEqual(one.draws[c]!.map((x) => x.iteration));
      expect(many.draws[c]!.map((x) => [x.chainId, x.lp, x.energy, x.nLeapfrog, ...x.position])).toEqual(
        one.draws[c]!.map((x) => [x.chainId, x.lp, x.energy, x.nLeapfrog, ...x.position]),
      );
    }
  });

  it("a paused run hands back every chain at one iteration; continued, it draws what the run draws", async () => {
    const d = await density();
    // A long warmup: the workers are far from their end when the calling thread asks at 150.
    const opts: SampleOptions = { chains: 5, warmup: 2000, draws: 150, seed: 31 };
    const want = sample(d, opts);
    const s = resolveSettings(opts);
    const finish = (state: RunState): SampleResult => {
      const run = new SamplingRun(d, opts);
      run.restore(state);
      while (!run.done) run.step();
      return run.result(false);
    };
    // Workers hold chains (a hand-over at 60) when the calling thread asks for them back at 150;
    // then a pause before any hand-over (every chain still on the calling thread).
    for (const [layout, at] of [[{ handOverAt: 60 }, 150], [{}, 20]] as const) {
      const out = await sampleThreadsPausable(d, { ...opts, threads: 3 }, { ...layout, handBack: (i) => i >= at });
      expect(out.kind).toBe("paused");
      if (out.kind !== "paused") continue;
      expect(out.state.chains).toHaveLength(5);
      // The furthest thread had gone past `at` by at most a few iterations; all stand together.
      expect(out.state.iteration).toBeGreaterThanOrEqual(at);
      expect(out.state.iteration).toBeLessThan(s.warmup);
      // Each thread's second half of its time since its chains came to it.
      expect(out.pace.gradients).toBeGreaterThan(0);
      expect(out.pace.gradients).toBeLessThan(out.state.chains.reduce((a, c) => a + c.evaluations, 0));
      expect(out.pace.seconds).toBeGreaterThan(0);
      expect(out.pace.threads).toBe("handOverAt" in layout ? 3 : 1);
      expectSameChains(finish(out.state), want);
      // Resumed on threads, the same.
      expectSameChains(await sampleThreads(d, { ...opts, threads: 3 }, {}, out.state), want);
    }
    // The calling thread hands every chain to the workers (it has other work), then watches them:
    // paused by their progress, and a run left to its end, all on the workers.
    // Six chains in groups of two, so that no worker is far ahead of the others at the pause.
    // A long warmup, so that the workers are far from their end when the pause comes.
    const six: SampleOptions = { ...opts, chains: 6, warmup: 3000 };
    const wantSix = sample(d, six);
    const finishSix = (state: RunState): SampleResult => {
      const run = new SamplingRun(d, six);
      run.restore(state);
      while (!run.done) run.step();
      return run.result(false);
    };
    // Three warm workers first: a worker that starts cold lags far behind warm ones on a run this short.
    expectSameChains(await sampleThreads(d, { ...six, threads: 3 }, { callingThreadSamples: false }), wantSix);
    const all = await sampleThreadsPausable(d, { ...six, threads: 3 }, { handOverAll: true, handOverAt: 10, handBack: (i) => i >= 100 });
    expect(all.kind).toBe("paused");
    if (all.kind === "paused") {
      expect(all.state.iteration).toBeGreaterThanOrEqual(100);
      expect(all.state.iteration).toBeLessThan(3000);
      expect(all.pace.threads).toBe(3);
      expectSameChains(finishSix(all.state), wantSix);
    }
    const whole = await sampleThreadsPausable(d, { ...six, threads: 3 }, { handOverAll: true, handOverAt: 10 });
    expect(whole.kind).toBe("result");
    if (whole.kind === "result") {
      expect(whole.result.threads!.chainThread.every((t) => t >= 1)).toBe(true);
      expectSameChains(whole.result, wantSix);
    }
    // A pause at a given iteration: every thread stops exactly there.
    const at = await sampleThreadsPausable(d, { ...six, threads: 3 }, { handOverAll: true, handOverAt: 10, pauseAt: 77 });
    expect(at.kind === "paused" && at.state.iteration).toBe(77);
    if (at.kind === "paused") expectSameChains(finishSix(at.state), wantSix);
    // A run that ends before anyone asks has its result.
    const ended = await sampleThreadsPausable(d, { ...opts, threads: 2 }, { handBack: () => false });
    expect(ended.kind).toBe("result");
    if (ended.kind === "result") expectSameChains(ended.result, want);
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

  it("a stop after a hand-over ends every chain at the same iteration, with the draws it would have made", async () => {
    const d = await density();
    const controller = new AbortController();
    let sampling = 0;
    const opts: SampleOptions = { chains: 5, warmup: 100, draws: 20_000, seed: 4 };
    const got = await sampleThreads(
      d,
      { ...opts, threads: 2, signal: controller.signal, onDraw: (x) => void (!x.warmup && ++sampling === 2000 && controller.abort()) },
      { handOverAt: 150 },
    );
    expect(got.aborted).toBe(true);
    expect(got.threads!.chainThread).toContain(1);
    expect(got.drawsDone).toBeGreaterThan(0);
    expect(got.drawsDone).toBeLessThan(20_000);
    const full = sample(d, { ...opts, draws: got.drawsDone });
    for (let c = 0; c < 5; c++) {
      expect(got.stats[c]!.lp.length).toBe(got.drawsDone);
      expect(bits(got.draws[c]!)).toEqual(bits(full.draws[c]!));
    }
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

describe("sampler worker threads and the process", () => {
  const script = fileURLToPath(new URL("./fixtures/threads-exit.ts", import.meta.url));
  const tsx = fileURLToPath(new URL("../../../node_modules/tsx/dist/cli.mjs", import.meta.url));
  for (const mode of ["idle", "sample"]) {
    it(`a process with sampler workers (${mode}) exits by itself`, () => {
      const r = spawnSync(process.execPath, [tsx, script, "2", mode], { encoding: "utf8", timeout: 120_000 });
      expect(r.error).toBeUndefined();
      expect(r.signal, "the process had to be killed").toBeNull();
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe(mode === "sample" ? "20" : "");
    });
  }
});
