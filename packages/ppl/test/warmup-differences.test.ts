/**
 * The three places where warmup differs from Stan 2.21 (docs/warmup-differences.md), each as kept:
 * warmup below 150 adapts the metric on the 15/75/10 schedule, a non-finite gradient is a
 * divergence at the leaf that meets it, and a transition with no leapfrog step has accept_stat 0
 * and is divergent.
 */
import { describe, expect, it } from "vitest";
import { sample } from "../src/index.ts";
import { seedKey } from "../src/random/index.ts";
import { ChainBatch, Metric, windowEnds, type BatchedDensity } from "../src/sampler/index.ts";
import { leapfrogEndHamiltonian } from "../src/sampler/integrator.ts";
import { NutsTransition } from "../src/sampler/nuts.ts";
import { chainContext } from "../src/sampler/transition.ts";

// Independent normals with standard deviations 1 and 10.
const scaled: BatchedDensity = {
  dim: 2,
  logpGrad(q, lp, grad, active) {
    for (let c = 0; c < lp.length; c++) {
      if (active && !active[c]) continue;
      const x = q[2 * c]!, y = q[2 * c + 1]! / 10;
      lp[c] = -0.5 * (x * x + y * y);
      grad[2 * c] = -x;
      grad[2 * c + 1] = -y / 10;
    }
  },
};

describe("warmup below 150 iterations", () => {
  it("adapts the metric on the 15/75/10 schedule where Stan 2.21 kept the identity", () => {
    expect(windowEnds(100)).toEqual([89]);
    const r = sample(scaled, { chains: 2, warmup: 100, draws: 10, seed: 4 });
    for (const a of r.adaptation) {
      const [vx, vy] = Array.from(a.invMetric);
      // Variances 1 and 100, estimated from 75 draws and regularised: far from the identity's ratio of 1.
      expect(vy! / vx!).toBeGreaterThan(10);
    }
    // Below 20 iterations no window: the identity stays.
    const short = sample(scaled, { chains: 1, warmup: 19, draws: 5, seed: 4 });
    expect(Array.from(short.adaptation[0]!.invMetric)).toEqual([1, 1]);
  });
});

describe("a non-finite gradient", () => {
  it("gives the leaf an infinite energy, where Stan's formula gives a non-finite one from the kicked momentum", () => {
    const metric = new Metric("diag", 2);
    const grad = Float64Array.of(Number.NaN, 1);
    const p = Float64Array.of(0.5, -0.2);
    const vel = new Float64Array(2);
    const stanP = Float64Array.from(p).map((v, i) => v + 0.5 * 0.1 * grad[i]!);
    const stanEnergy = 1.3 + 0.5 * (stanP[0]! ** 2 + stanP[1]! ** 2);
    expect(Number.isFinite(stanEnergy)).toBe(false);
    expect(leapfrogEndHamiltonian(-1.3, p, grad, 0.1, metric, vel)).toBe(Infinity);
  });

  it("ends a trajectory as a divergence, and no draw lies where the gradient is not finite", () => {
    // A standard normal whose gradient is NaN beyond x = 1.5 (its log density stays finite there).
    const holed: BatchedDensity = {
      dim: 1,
      logpGrad(q, lp, grad, active) {
        for (let c = 0; c < lp.length; c++) {
          if (active && !active[c]) continue;
          lp[c] = -0.5 * q[c]! * q[c]!;
          grad[c] = q[c]! > 1.5 ? Number.NaN : -q[c]!;
        }
      },
    };
    const r = sample(holed, { chains: 2, warmup: 100, draws: 200, seed: 8, init: Float64Array.of(0) });
    const divergent = r.stats.reduce((n, s) => n + s.divergent.reduce((a, b) => a + b, 0), 0);
    expect(divergent).toBeGreaterThan(0);
    for (const d of r.draws) for (const x of d) expect(x).toBeLessThanOrEqual(1.5);
  });
});

describe("a transition with no leapfrog step", () => {
  it("is divergent with accept_stat 0, where Stan 2.21 gives NaN", () => {
    const batch = new ChainBatch(1, 2);
    batch.qRows[0]!.set([0.1, 0.2]);
    batch.gradRows[0]!.set([0, 0]);
    batch.lp[0] = -Infinity;
    const t = new NutsTransition(chainContext(batch, { row: 0, id: 0 }, seedKey(1), new Metric("diag", 2)));
    expect(t.begin(0, 0.5)).toBe(false);
    expect(t.nLeapfrog).toBe(0);
    expect(t.divergent).toBe(true);
    expect(t.acceptStat).toBe(0);
  });
});
