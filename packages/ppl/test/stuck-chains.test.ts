/**
 * Stuck-chain detection (sampler/warmup/stuck-chains.ts): the rule on hand-made evidence, its
 * invariances (fast-check), and a sampler run in which one chain is forced to start where the
 * gradient is unrelated to the log density, as an ODE state below the solver's resolution made it:
 * the chain is named at the first window's end, a fresh initial point for it is drawn from the
 * Init stream of the iteration it restarts at, and the chain restarted there with a fresh
 * adaptation samples like the others.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample, type DrawInfo } from "../src/index.ts";
import { seedKey } from "../src/random/index.ts";
import { ChainAdaptation, ChainBatch, defaultWindows, driveBatch, InitialPointSearch, Metric, windowEnds, type BatchedDensity } from "../src/sampler/index.ts";
import { defaultDualAveraging } from "../src/sampler/warmup/dual-averaging.ts";
import { nuts, windowedAdaptation, type SamplingMethod } from "../src/sampler/methods/index.ts";
import { SamplingRun } from "../src/sampler/sampling-run.ts";
import { chainRangeOptions } from "../src/sampler/settings.ts";
import { controlWords, Control, Mode } from "../src/sampler/threads/protocol.ts";
import { evidenceBuffers, SharedEvidenceExchange } from "../src/sampler/threads/stuck-exchange.ts";
import type { ChainCheck, EvidenceExchange, Reinitialisation } from "../src/sampler/warmup/stuck-watch.ts";
import { stopSamplerThreads } from "../src/sampler/threads/pool.ts";
import { sampleThreads } from "../src/sampler/threads/threaded-run.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";
import {
  chainsToReinitialise, defaultReinitialisationPolicy, findStuckChains, reinitialisedNote, samplingEvidence, stuckWarning, WindowEvidence, type ChainWindowEvidence,
} from "../src/sampler/warmup/stuck-chains.ts";

const healthy = (stepSize: number, movement = 2): ChainWindowEvidence => ({ stepSize, iterations: 100, maxDepthShare: 0, movement });

describe("findStuckChains", () => {
  it("names the two chains of Lotka–Volterra's seed 1 whose step sizes collapsed, and only them", () => {
    const stuck = findStuckChains([healthy(0.113), healthy(0.119), healthy(4.0e-5, 0.01), healthy(1.8e-6, 0.001)]);
    expect(stuck.map((s) => [s.chain, s.reason])).toEqual([[2, "step size"], [3, "step size"]]);
    expect(stuck[0]!.othersStepSize).toBeCloseTo(0.113, 12);
  });

  it("leaves chains whose step sizes differ by less than three orders of magnitude", () => {
    expect(findStuckChains([healthy(0.5), healthy(0.05), healthy(0.9), healthy(0.002)])).toEqual([]);
  });

  it("names a chain at the maximum depth that barely moves while the others move, whatever its step size", () => {
    const frozen = { stepSize: 0.01, iterations: 50, maxDepthShare: 0.96, movement: 0.004 };
    const stuck = findStuckChains([healthy(0.2), frozen, healthy(0.3), healthy(0.25)]);
    expect(stuck.map((s) => [s.chain, s.reason])).toEqual([[1, "frozen"]]);
    // Deep trees alone are a hard posterior, not a stuck chain.
    expect(findStuckChains([healthy(0.2), { ...frozen, movement: 1.5 }, healthy(0.3)])).toEqual([]);
  });

  it("alone, a chain counts as stuck only when it did not move at all; a NaN step size counts as collapsed", () => {
    expect(findStuckChains([{ stepSize: 1e-9, iterations: 50, maxDepthShare: 1, movement: 1e-7 }])).toEqual([]);
    expect(findStuckChains([{ stepSize: 1e-9, iterations: 50, maxDepthShare: 1, movement: 0 }]).map((s) => s.reason)).toEqual(["frozen"]);
    expect(findStuckChains([healthy(NaN), healthy(0.1), healthy(0.2)]).map((s) => s.chain)).toEqual([0]);
  });

  const evidence = fc.record({
    stepSize: fc.double({ min: 1e-8, max: 10, noNaN: true }),
    iterations: fc.integer({ min: 1, max: 500 }),
    maxDepthShare: fc.double({ min: 0, max: 1, noNaN: true }),
    // Zero or a normal double: a subnormal movement scaled by 2^-6 loses its bits (5e-324 / 2 is 0).
    movement: fc.oneof(fc.constant(0), fc.double({ min: 1e-300, max: 10, noNaN: true })),
  });

  it("does not depend on the units (every step size and movement scaled alike) or on the chains' order", () => {
    fc.assert(
      fc.property(fc.array(evidence, { minLength: 1, maxLength: 8 }), fc.integer({ min: -6, max: 6 }), fc.integer({ min: 0, max: 7 }), (chains, power, shift) => {
        const k = 2 ** power;
        const names = (e: readonly ChainWindowEvidence[]) => findStuckChains(e).map((s) => `${s.chain}:${s.reason}`);
        expect(names(chains.map((e) => ({ ...e, stepSize: e.stepSize * k, movement: e.movement * k })))).toEqual(names(chains));
        const r = shift % chains.length;
        const rotated = [...chains.slice(r), ...chains.slice(0, r)];
        expect(findStuckChains(rotated).map((s) => (s.chain + r) % chains.length).sort()).toEqual(findStuckChains(chains).map((s) => s.chain).sort());
      }),
    );
  });

  it("names no chain when every chain did the same", () => {
    fc.assert(fc.property(evidence, fc.integer({ min: 2, max: 8 }), (e, n) => {
      fc.pre(e.movement > 0);
      expect(findStuckChains(Array.from({ length: n }, () => e))).toEqual([]);
    }));
  });
});

describe("WindowEvidence and the re-initialisation policy", () => {
  it("measures the largest coordinate range and the share of trees at the maximum depth, from scratch after reset", () => {
    const w = new WindowEvidence(2);
    w.add([0, 5], 10, 10);
    w.add([0.5, 4], 3, 10);
    w.add([0.25, 4.2], 10, 10);
    expect(w.evidence(0.3)).toEqual({ stepSize: 0.3, iterations: 3, maxDepthShare: 2 / 3, movement: 1 });
    w.reset();
    w.add([7, 7], 10, 10);
    expect(w.evidence(0.1)).toEqual({ stepSize: 0.1, iterations: 1, maxDepthShare: 1, movement: 0 });
  });

  it("re-initialises while enough warmup is left for a fresh adaptation, at most maxPerChain times a chain", () => {
    const stuck = findStuckChains([healthy(0.1), healthy(1e-7), healthy(0.2), healthy(1e-8)]);
    const { minWarmupLeft, maxPerChain } = defaultReinitialisationPolicy;
    expect(chainsToReinitialise(stuck, 99, 1000, [0, 0, 0, 0]).map((s) => s.chain)).toEqual([1, 3]);
    expect(chainsToReinitialise(stuck, 1000 - minWarmupLeft - 1, 1000, [0, 0, 0, 0]).map((s) => s.chain)).toEqual([1, 3]);
    expect(chainsToReinitialise(stuck, 1000 - minWarmupLeft, 1000, [0, 0, 0, 0])).toEqual([]);
    expect(chainsToReinitialise(stuck, 149, 1000, [0, maxPerChain, 0, 1]).map((s) => s.chain)).toEqual([3]);
  });

  it("says what it saw and what it did, chains numbered from 1", () => {
    const [s] = findStuckChains([healthy(0.113), healthy(0.119), healthy(4.0e-5)]);
    expect(reinitialisedNote(s!, 3, 99)).toBe(
      "chain 3: its step size collapsed to 4.0e-5 (the other chains' median 0.12), 0% of its trees at the maximum depth by warmup iteration 100; re-initialised from a fresh random point, its adaptation restarted for the remaining warmup",
    );
    expect(stuckWarning(s!, 3)).toMatch(/^chain 3 looks stuck: its step size collapsed to 4\.0e-5 .*--init 0\.5/);
  });
});

describe("ChainAdaptation.restart", () => {
  it("returns to the metric the chain started with, drops the draws towards the next estimate and the step-size history, and keeps the run's windows", () => {
    const metric = new Metric("diag", 2, Float64Array.of(2, 3));
    const a = new ChainAdaptation(0, metric, 300, 1, defaultDualAveraging, defaultWindows);
    const fresh = new ChainAdaptation(0, new Metric("diag", 2, Float64Array.of(2, 3)), 300, 1, defaultDualAveraging, defaultWindows);
    let closed = -1;
    for (let t = 0; t < 110 && closed < 0; t++) {
      a.learnStepSize(0.3);
      if (a.learnMetric(Float64Array.of(Math.sin(t), 10 * Math.cos(t)))) closed = t;
    }
    expect(closed).toBe(windowEnds(300)[0]);
    expect(Array.from(metric.inverse)).not.toEqual([2, 3]);
    const windows = a.state().windows;
    a.restart();
    expect(Array.from(metric.inverse)).toEqual([2, 3]);
    const { dualAveraging, welford } = a.state();
    expect(welford).toEqual(fresh.state().welford);
    expect({ ...dualAveraging, mu: 0 }).toEqual({ ...fresh.state().dualAveraging, mu: 0 });
    expect(a.state().windows).toEqual(windows);
  });
});

/**
 * A standard normal in 2 dimensions whose gradient, beyond q₀ = 6 (never reached from the others'
 * starting points: 1e-9 a draw), is the true one plus a deterministic oscillation of amplitude 1e6:
 * the log density stays smooth and finite there, its gradient is unrelated to it.
 */
const noisyWhereFar: BatchedDensity = {
  dim: 2,
  logpGrad(q, lp, grad, active) {
    for (let c = 0; c < lp.length; c++) {
      if (active && !active[c]) continue;
      const x = q[2 * c]!, y = q[2 * c + 1]!;
      lp[c] = -0.5 * (x * x + y * y);
      const noise = x > 6 ? 1e6 * Math.sin(1e7 * (x + 2 * y)) : 0;
      grad[2 * c] = -x + noise;
      grad[2 * c + 1] = -y - noise;
    }
  },
};

// NUTS with Stan's warmup but without re-initialising stuck chains: a chain left alone.
const { reinitialise: _unused, ...adaptationWithout } = windowedAdaptation;
const nutsWithout: SamplingMethod<unknown> = { ...(nuts as SamplingMethod<unknown>), name: "nuts-without-reinitialisation", adaptation: adaptationWithout };

// Each chain's evidence at each window's end of a run, from its draws.
function evidenceAtWindowEnds(chains: number, warmup: number, maxDepth: number) {
  const ends = new Set(windowEnds(warmup));
  const windows = Array.from({ length: chains }, () => new WindowEvidence(2));
  const atEnds = new Map<number, ChainWindowEvidence[]>();
  const sampling = Array.from({ length: chains }, () => new WindowEvidence(2));
  const stepSizes = new Float64Array(chains);
  const onDraw = (d: DrawInfo) => {
    const w = d.warmup ? windows[d.chain]! : sampling[d.chain]!;
    w.add(d.position, d.treeDepth, maxDepth);
    stepSizes[d.chain] = d.stepSize;
    if (d.warmup && ends.has(d.iteration)) {
      const row = atEnds.get(d.iteration) ?? [];
      row[d.chain] = w.evidence(d.stepSize);
      atEnds.set(d.iteration, row);
      w.reset();
    }
  };
  return { onDraw, atEnds, sampling: () => sampling.map((w, c) => w.evidence(stepSizes[c]!)) };
}

describe("a chain forced to start where the gradient is noise", () => {
  const seed = 11, warmup = 300, maxDepth = 10;
  const inits = [Float64Array.of(8, 0.5), Float64Array.of(0.3, -0.4), Float64Array.of(-1, 1.2), Float64Array.of(0.9, 0.1)];

  it("is detected at every window's end and at the run's end, and a fresh start with a fresh adaptation samples like the others", () => {
    const run = evidenceAtWindowEnds(4, warmup, maxDepth);
    const r = sample(noisyWhereFar, { chains: 4, warmup, draws: 100, seed, maxDepth, init: inits, onDraw: run.onDraw, method: nutsWithout });
    // Left alone it stays where it started for the whole run.
    expect(Math.abs(r.draws[0]![0]! - 8)).toBeLessThan(0.1);
    const ends = windowEnds(warmup);
    expect([...run.atEnds.keys()]).toEqual(ends);
    for (const t of ends) expect(findStuckChains(run.atEnds.get(t)!).map((s) => [s.chain, s.reason]), `window ending at ${t}`).toEqual([[0, "step size"]]);
    const atRunEnd = findStuckChains(run.sampling());
    expect(atRunEnd.map((s) => s.chain)).toEqual([0]);
    // From the result alone (step sizes and tree depths), as the end of a run sees it.
    const fromResult = findStuckChains(samplingEvidence(r.adaptation.map((a) => a.stepSize), r.stats.map((s) => s.treeDepth), maxDepth));
    expect(fromResult.map((s) => [s.chain, s.reason])).toEqual([[0, "step size"]]);
    expect(stuckWarning(atRunEnd[0]!, 1)).toMatch(/^chain 1 looks stuck: its step size collapsed to \d\.\de-\d+ \(the other chains. median 0\.\d+\), \d+% of its trees at the maximum depth/);

    // At the first window's end the policy re-initialises it.
    const first = ends[0]!;
    const [stuck] = chainsToReinitialise(findStuckChains(run.atEnds.get(first)!), first, warmup, [0, 0, 0, 0]);
    expect(stuck?.chain).toBe(0);
    expect(reinitialisedNote(stuck!, 1, first)).toMatch(/^chain 1: its step size collapsed .* by warmup iteration 100; re-initialised/);

    // A fresh point: the initial search's scheme, from the Init stream of the iteration the chain restarts at.
    const fresh = (iteration: number) => {
      const batch = new ChainBatch(1, 2);
      const search = new InitialPointSearch(batch, { row: 0, id: 0 }, seedKey(seed), 2, null, iteration);
      batch.active[0] = search.begin() ? 1 : 0;
      driveBatch(noisyWhereFar, batch, [search]);
      return Float64Array.from(batch.qRows[0]!);
    };
    const q = fresh(first + 1);
    expect(Array.from(fresh(first + 1))).toEqual(Array.from(q));
    expect(Array.from(fresh(0))).not.toEqual(Array.from(q));
    expect(Math.max(...q.map(Math.abs))).toBeLessThan(2);

    // Restarted there with a fresh adaptation for the remaining warmup, next to healthy chains.
    const rest = evidenceAtWindowEnds(4, warmup - first - 1, maxDepth);
    const again = sample(noisyWhereFar, { chains: 4, warmup: warmup - first - 1, draws: 100, seed: seed + 1, maxDepth, init: [q, ...inits.slice(1)], onDraw: rest.onDraw, method: nutsWithout });
    expect(findStuckChains(rest.sampling())).toEqual([]);
    const steps = again.stats.map((s) => s.stepSize[0]!);
    expect(steps[0]! / Math.max(...steps.slice(1))).toBeGreaterThan(0.1);
  });
});

describe("the driver re-initialises a stuck chain at a window's end", () => {
  const seed = 11, warmup = 300, maxDepth = 10;
  const inits = [Float64Array.of(8, 0.5), Float64Array.of(0.3, -0.4), Float64Array.of(-1, 1.2), Float64Array.of(0.9, 0.1)];
  const healthyInits = [Float64Array.of(-0.2, 0.5), ...inits.slice(1)];
  const opts = { chains: 4, warmup, draws: 100, seed, maxDepth };

  it("names it at the first window's end, starts it afresh, and leaves the other chains' draws as they were", () => {
    const notes: Reinitialisation[] = [];
    const r = sample(noisyWhereFar, { ...opts, init: inits, onReinitialised: (x) => notes.push(x) });
    const first = windowEnds(warmup)[0]!;
    expect(r.reinitialisations.map((x) => [x.chain, x.chainId, x.iteration, x.stuck.reason])).toEqual([[0, 0, first, "step size"]]);
    expect(notes).toEqual(r.reinitialisations);
    expect(r.reinitialisations[0]!.stuck.stepSize).toBeLessThan(1e-3 * r.reinitialisations[0]!.stuck.othersStepSize);
    // Afresh, it samples like the others: a step size like theirs, away from where it was stuck.
    const steps = r.adaptation.map((a) => a.stepSize);
    expect(steps[0]! / Math.max(...steps.slice(1))).toBeGreaterThan(0.1);
    expect(findStuckChains(samplingEvidence(steps, r.stats.map((s) => s.treeDepth), maxDepth))).toEqual([]);
    expect(Math.max(...r.draws[0]!.filter((_, i) => i % 2 === 0))).toBeLessThan(6);
    // Chains are independent streams: the others drew exactly what they draw without the check.
    const before = sample(noisyWhereFar, { ...opts, init: inits, method: nutsWithout });
    expect(before.reinitialisations).toEqual([]);
    for (const c of [1, 2, 3]) expect(Array.from(r.draws[c]!)).toEqual(Array.from(before.draws[c]!));
    expect(Array.from(r.draws[0]!)).not.toEqual(Array.from(before.draws[0]!));
    // Reproducible: the fresh point comes from the chain's Init stream of iteration first + 1.
    const again = sample(noisyWhereFar, { ...opts, init: inits });
    expect(Array.from(again.draws[0]!)).toEqual(Array.from(r.draws[0]!));
  }, 30_000);

  it("changes no draw when no chain is stuck", () => {
    const r = sample(noisyWhereFar, { ...opts, init: healthyInits });
    const before = sample(noisyWhereFar, { ...opts, init: healthyInits, method: nutsWithout });
    expect(r.reinitialisations).toEqual([]);
    for (let c = 0; c < 4; c++) {
      expect(Array.from(r.draws[c]!)).toEqual(Array.from(before.draws[c]!));
      expect(Array.from(r.stats[c]!.stepSize)).toEqual(Array.from(before.stats[c]!.stepSize));
    }
  }, 30_000);

  it("decides the same over chain ranges that share their evidence (as threads do) as over the whole run", () => {
    // The whole run's evidence at each window's end, recorded; each range gets it back from its exchange.
    const recorded = new Map<number, readonly ChainCheck[]>();
    const recorder: EvidenceExchange = { firstChain: 0, share: (t, own) => (recorded.set(t, own.map((o) => ({ ...o }))), own) };
    const whole = new SamplingRun(noisyWhereFar, { ...opts, init: inits });
    whole.shareStuckEvidence(recorder);
    while (whole.step());
    const w = whole.result(false);
    expect(w.reinitialisations.map((x) => x.chain)).toEqual([0]);
    const s = w.settings;
    for (const [first, count] of [[0, 1], [1, 3], [0, 2], [2, 2]] as const) {
      const part = new SamplingRun(noisyWhereFar, chainRangeOptions({ ...opts, init: inits }, s, first, count));
      part.shareStuckEvidence({
        firstChain: 0,
        share: (t, own) => {
          const all = recorded.get(t)!;
          expect(own).toEqual(all.slice(first, first + count));
          return all;
        },
      });
      while (part.step());
      const p = part.result(false);
      expect(p.reinitialisations.map((x) => [first + x.chain, x.chainId])).toEqual(w.reinitialisations.filter((x) => x.chain >= first && x.chain < first + count).map((x) => [x.chain, x.chainId]));
      for (let c = 0; c < count; c++) expect(Array.from(p.draws[c]!), `chain ${first + c} of range ${first}+${count}`).toEqual(Array.from(w.draws[first + c]!));
    }
  }, 30_000);

  it("carries a chain's window evidence and re-initialisations when its run is handed over between iterations", () => {
    const whole = sample(noisyWhereFar, { ...opts, init: inits });
    for (const at of [50, 99, 100, 180]) {
      const run = new SamplingRun(noisyWhereFar, { ...opts, init: inits });
      while (run.iterationsDone < at) run.step();
      const next = new SamplingRun(noisyWhereFar, { ...opts, init: inits });
      next.restore(run.handOver(0, 4));
      while (next.step());
      const r = next.result(false);
      expect(r.reinitialisations, `handed over at ${at}`).toEqual(whole.reinitialisations);
      for (let c = 0; c < 4; c++) expect(Array.from(r.draws[c]!)).toEqual(Array.from(whole.draws[c]!));
    }
  }, 30_000);
});

describe("SharedEvidenceExchange", () => {
  const check = (stepSize: number, reinitialised = 0): ChainCheck => ({ evidence: { stepSize, iterations: 25, maxDepthShare: 0.5, movement: 1 }, reinitialised });

  it("gives every chain's evidence in run order once all are in; a thread that waits while the run stops leaves without", () => {
    const warmup = 300;
    const buffers = evidenceBuffers(4, warmup);
    const control = controlWords(3);
    const t = windowEnds(warmup)[1]!;
    // Rows 0-1 arrive first while the run is stopping: the others may never come, so no decision.
    Atomics.store(control, Control.MODE, Mode.STOP);
    expect(new SharedEvidenceExchange(buffers, 7, 0, 4, warmup, control).share(t, [check(0.1), check(2e-6, 1)])).toBeNull();
    // Rows 2-3 complete the window: everyone's evidence, in run order, whatever the mode.
    const all = new SharedEvidenceExchange(buffers, 7, 2, 4, warmup, control).share(t, [check(0.3), check(0.2)]);
    expect(all).toEqual([check(0.1), check(2e-6, 1), check(0.3), check(0.2)]);
    // Another window has slots of its own; an iteration that closes no window decides nothing.
    expect(new SharedEvidenceExchange(buffers, 7, 0, 4, warmup, control).share(windowEnds(warmup)[0]!, [check(1), check(1), check(1), check(1)])).toEqual([check(1), check(1), check(1), check(1)]);
    expect(new SharedEvidenceExchange(buffers, 7, 0, 4, warmup, control).share(t + 1, [check(1)])).toBeNull();
  });
});

describe("a stuck chain in a run spread over worker threads", () => {
  afterAll(() => stopSamplerThreads());

  it("is re-initialised at the same window as on one thread, every chain drawing the same bits", async () => {
    const d = await modelDensity(compileModel(eightSchools, { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] }), { backend: "cpu" });
    // Chain 2 starts with an inverse metric 1e12 times the unit one: its step size collapses by six orders of magnitude.
    const unit = new Float64Array(d.dim).fill(1);
    const opts = { chains: 4, warmup: 300, draws: 50, seed: 21, invMetric: [unit, unit, new Float64Array(d.dim).fill(1e12), unit] };
    const one = sample(d, opts);
    expect(one.reinitialisations.map((x) => [x.chain, x.iteration, x.stuck.reason])[0]).toEqual([2, windowEnds(300)[0], "step size"]);
    const notes: Reinitialisation[] = [];
    // The calling thread hands chains to two workers before the first window's end: the evidence meets in shared memory.
    const many = await sampleThreads(d, { ...opts, threads: 3, onReinitialised: (x) => notes.push(x) }, { handOverAt: 40 });
    // A forced hand-over takes the workers ready at iteration 40: one or both, as fast as they
    // started (two of the three threads, or all three); either way chains sit on several threads.
    expect(new Set(many.threads!.chainThread).size).toBeGreaterThanOrEqual(2);
    expect(many.reinitialisations).toEqual(one.reinitialisations);
    expect(notes).toEqual(one.reinitialisations);
    for (let c = 0; c < 4; c++) expect(Array.from(many.draws[c]!), `chain ${c}`).toEqual(Array.from(one.draws[c]!));
  }, 60_000);
});
