/**
 * Whole leapfrog trajectories (trajectory.ts): a method that knows its n steps before it starts
 * (ChEES, static HMC) hands them to the density in one call (LeapfrogDensity.leapfrogs), and the
 * leapfrog halves as tensor-IR graphs (leapfrog-graph.ts, what a GPU renders) run through the
 * reference interpreter as that call, ChEES's momenta drawn by the Philox graphs (random/philox-graph.ts),
 * give the CPU's draws bit for bit. A chain whose lp turns
 * non-finite stops there (ChEES) and the others go on.
 */
import { describe, expect, it } from "vitest";
import { interpret } from "@ppl/tensor";
import { compileModel, modelDensity, sample, type BatchedDensity, type SampleResult } from "../src/index.ts";
import { leapfrogGraphs, leapfrogsByRounds, momentumDrawGraphs, momentumRowsOf, trajectory, type LeapfrogDensity, type Trajectory } from "../src/inference.ts";
import { ChainBatch } from "../src/sampler/batch.ts";
import { Metric } from "../src/sampler/metric.ts";
import { chainContext } from "../src/sampler/transition.ts";
import { seedKey } from "../src/random/streams.ts";
import eightSchools from "../../../examples/eight_schools.ts";

const data = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };

/** The graphs' step loop, as a GPU records it, run by the reference interpreter: the IR's twin of leapfrogsByRounds. */
function interpretedLeapfrogs(density: BatchedDensity, batch: ChainBatch, trajectories: readonly Trajectory[]): { steps: number } {
  const C = batch.chains;
  const D = batch.dim;
  const g = leapfrogGraphs(C, D, "f64");
  const rows = (f: (t: Trajectory) => Float64Array): Float64Array => {
    const out = new Float64Array(C * D);
    trajectories.forEach((t, c) => out.set(f(t), c * D));
    return out;
  };
  const fixed = {
    step_size: trajectories.map((t) => t.stepSize), steps: trajectories.map((t) => t.steps), stop: trajectories[0]!.stopAtNonFinite ? 1 : 0,
    inv_metric: rows((t) => (t.chain.metric as Metric & { inverse: Float64Array }).inverse),
  };
  let state: Record<string, Float64Array> = {
    q: Float64Array.from(batch.q), p: rows((t) => t.p), grad: Float64Array.from(batch.grad), lp: Float64Array.from(batch.lp),
    active: Float64Array.from(trajectories, (t) => (t.steps > 0 ? 1 : 0)), taken: new Float64Array(C),
  };
  // The momenta and accept uniforms a trajectory draws itself (ChEES), by the graphs a device runs.
  const draw = trajectories[0]!.draw;
  if (draw) {
    const g = momentumDrawGraphs(C, D, "f64");
    const { key } = trajectories[0]!.chain;
    const [p0, u] = interpret([g.p, g.acceptUniform], {
      inv_metric: fixed.inv_metric, chain_id: Float64Array.from(trajectories, (t) => t.chain.id), iteration: Float64Array.of(draw.iteration),
      purpose_word: Float64Array.of(draw.purpose | (draw.sub << 8)), key_lo: Float64Array.of(key.lo | 0), key_hi: Float64Array.of(key.hi | 0),
      accept_word: Float64Array.of(draw.acceptPurpose ?? 0),
    });
    state.p = p0!.data;
    trajectories.forEach((t, c) => {
      t.draw!.initial.set(p0!.data.subarray(c * D, (c + 1) * D));
      t.draw!.acceptUniform = u!.data[c]!;
    });
  }
  const n = Math.max(...trajectories.map((t) => t.steps));
  const lp = new Float64Array(C);
  const grad = new Float64Array(C * D);
  for (let k = 0; k < n; k++) {
    const [midQ, midP] = interpret([g.begin.q, g.begin.p], { ...fixed, ...state }).map((v) => v.data);
    density.logpGrad(midQ!, lp, grad);
    const next = interpret([g.end.q, g.end.p, g.end.grad, g.end.lp, g.end.active, g.end.taken], { ...fixed, ...state, mid_q: midQ!, mid_p: midP!, new_lp: lp, new_grad: grad });
    state = Object.fromEntries(["q", "p", "grad", "lp", "active", "taken"].map((name, i) => [name, next[i]!.data]));
  }
  batch.q.set(state.q!);
  batch.grad.set(state.grad!);
  batch.lp.set(state.lp!);
  trajectories.forEach((t, c) => {
    t.p.set(state.p!.subarray(c * D, (c + 1) * D));
    t.taken = state.taken![c]!;
    batch.evaluations[c] = batch.evaluations[c]! + t.taken;
  });
  return { steps: n };
}

/** The density with leapfrogs served by `run`, counting its calls. */
function withLeapfrogs(host: BatchedDensity, run: (d: BatchedDensity, b: ChainBatch, t: readonly Trajectory[]) => unknown): LeapfrogDensity & { calls: number } {
  const d: LeapfrogDensity & { calls: number } = { dim: host.dim, calls: 0, logpGrad: host.logpGrad.bind(host) };
  d.leapfrogs = (batch, trajectories) => {
    d.calls++;
    run(host, batch, trajectories);
  };
  return d;
}

const same = (a: SampleResult, b: SampleResult): void => {
  a.draws.forEach((d, c) => expect(Array.from(d)).toEqual(Array.from(b.draws[c]!)));
  a.stats.forEach((s, c) => expect(Array.from(s.nLeapfrog)).toEqual(Array.from(b.stats[c]!.nLeapfrog)));
  expect(a.gradientEvaluations).toEqual(b.gradientEvaluations);
};

describe("whole leapfrog trajectories", () => {
  it("chees and static hmc: by rounds, and through the IR graphs in the interpreter, the draws of today's loop", async () => {
    const host = await modelDensity(compileModel(eightSchools, data), { backend: "cpu" });
    for (const opts of [
      { method: "chees", chains: 6, warmup: 12, draws: 8, seed: 4, stepSize: 0.3 },
      { method: "hmc", hmcSteps: 4, chains: 3, warmup: 12, draws: 8, seed: 9, stepSize: 0.5 },
    ] as const) {
      const want = sample(host, opts);
      const rounds = withLeapfrogs(host, leapfrogsByRounds);
      same(sample(rounds, opts), want);
      // One call of the density a transition (the step-size search and initialisation go by rounds).
      expect(rounds.calls).toBe(opts.warmup + opts.draws);
      same(sample(withLeapfrogs(host, interpretedLeapfrogs), opts), want);
    }
  });

  it("a chain whose lp turns non-finite stops there, its row and momentum kept; the others take every step", () => {
    // N(0, I) in 2-D with lp = −∞ beyond q₀ = 1: chain 0 starts moving towards it, chain 1 away.
    const dim = 2;
    const density: BatchedDensity = {
      dim,
      logpGrad(q, lp, grad) {
        for (let c = 0; c < lp.length; c++) {
          const x = q[c * dim]!;
          const y = q[c * dim + 1]!;
          lp[c] = x > 1 ? -Infinity : -0.5 * (x * x + y * y);
          grad[c * dim] = -x;
          grad[c * dim + 1] = -y;
        }
      },
    };
    const runWith = (run: (d: BatchedDensity, b: ChainBatch, t: readonly Trajectory[]) => unknown, stop: boolean) => {
      const batch = new ChainBatch(2, dim);
      batch.q.set([0.5, 0, -0.5, 0]);
      density.logpGrad(batch.q, batch.lp, batch.grad);
      const ts = [0, 1].map((c) => {
        const chain = chainContext(batch, { row: c, id: c }, seedKey(1), new Metric("diag", dim));
        const t = trajectory(chain, Float64Array.of(c === 0 ? 2 : -2, 0.1), new Float64Array(dim), stop);
        t.steps = 8;
        t.stepSize = 0.2;
        return t;
      });
      run(density, batch, ts);
      return { batch, ts };
    };
    const byRounds = runWith(leapfrogsByRounds, true);
    const viaGraphs = runWith(interpretedLeapfrogs, true);
    expect(byRounds.ts[0]!.taken).toBeLessThan(8);
    expect(byRounds.batch.lp[0]).toBe(-Infinity);
    expect(byRounds.batch.q[0]).toBeGreaterThan(1);
    expect(byRounds.ts[1]!.taken).toBe(8);
    expect(Array.from(byRounds.batch.evaluations)).toEqual(byRounds.ts.map((t) => t.taken));
    for (const [a, b] of [[byRounds, viaGraphs]] as const) {
      expect(Array.from(b.batch.q)).toEqual(Array.from(a.batch.q));
      expect(Array.from(b.batch.lp)).toEqual(Array.from(a.batch.lp));
      expect(Array.from(b.batch.grad)).toEqual(Array.from(a.batch.grad));
      expect(b.ts.map((t) => t.taken)).toEqual(a.ts.map((t) => t.taken));
      b.ts.forEach((t, c) => expect(Array.from(t.p)).toEqual(Array.from(a.ts[c]!.p)));
    }
    // Without the stop (static HMC) every chain takes every step, whatever the density.
    expect(runWith(leapfrogsByRounds, false).ts.map((t) => t.taken)).toEqual([8, 8]);
    expect(runWith(interpretedLeapfrogs, false).ts.map((t) => t.taken)).toEqual([8, 8]);
  });

  it("momentumRowsOf: the one array whose row c is trajectory c's momentum, else null", () => {
    const dim = 3;
    const batch = new ChainBatch(4, dim);
    const rows = new Float64Array(4 * dim);
    const at = (c: number, all: Float64Array = rows): Trajectory =>
      trajectory(chainContext(batch, { row: c, id: c }, seedKey(1), new Metric("diag", dim)), all.subarray(c * dim, (c + 1) * dim), new Float64Array(dim), true, all);
    const ts = [0, 1, 2, 3].map((c) => at(c));
    expect(momentumRowsOf(ts, dim)).toBe(rows);
    // Out of row order, rows of another array, fewer trajectories than rows, or momenta of their own: row by row.
    expect(momentumRowsOf([ts[1]!, ts[0]!, ts[2]!, ts[3]!], dim)).toBeNull();
    expect(momentumRowsOf([ts[0]!, ts[1]!, at(2, new Float64Array(4 * dim)), ts[3]!], dim)).toBeNull();
    expect(momentumRowsOf(ts.slice(0, 3), dim)).toBeNull();
    expect(momentumRowsOf(ts.map((t) => trajectory(t.chain, t.p, t.vel, true)), dim)).toBeNull();
  });
});
