import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  chainContext,
  ChainBatch,
  driveBatch,
  DualAveraging,
  Metric,
  regularize,
  StepSizeSearch,
  WelfordDense,
  WelfordDiag,
  WindowSchedule,
  windowEnds,
  type BatchedDensity,
} from "../src/sampler/index.ts";
import { seedKey } from "../src/random/index.ts";

/** Iterations whose draws enter the metric estimate. */
function windowed(warmup: number): number {
  const w = new WindowSchedule(warmup);
  let n = 0;
  for (let t = 0; t < warmup; t++) {
    if (w.inWindow()) n++;
    if (w.atWindowEnd()) w.computeNextWindow();
    w.advance();
  }
  return n;
}

describe("windowed adaptation schedule", () => {
  it("uses Stan's 75 / 25, 50, 100, 200, 500 / 50 windows for 1000 warmup iterations", () => {
    expect(windowEnds(1000)).toEqual([99, 149, 249, 449, 949]);
    expect(windowed(1000)).toBe(875);
  });

  it("stretches the last window to the terminal buffer", () => {
    // 500: windows 25, 50, 100 and then 200, which ends exactly at the terminal buffer.
    expect(windowEnds(500)).toEqual([99, 149, 249, 449]);
    // 400: after 25, 50 the next window (100) would leave less than its double, so it stretches to 349.
    expect(windowEnds(400)).toEqual([99, 149, 349]);
    expect(windowEnds(150)).toEqual([99]);
  });

  it("falls back to 15% / 75% / 10% when the default buffers do not fit", () => {
    // warmup 100: init buffer 15, term buffer 10, one window of 75 ending at 89.
    expect(windowEnds(100)).toEqual([89]);
    // warmup 20: buffers 3 and 2, one window of 15 ending at 17.
    expect(windowEnds(20)).toEqual([17]);
  });

  it("adapts no metric for warmup shorter than 20", () => {
    expect(windowEnds(19)).toEqual([]);
    expect(windowed(19)).toBe(0);
  });
});

describe("dual averaging", () => {
  it("follows Stan's update formulas", () => {
    const da = new DualAveraging(Math.log(10));
    // t = 1: eta = 1/11, sBar = (0.8 − a)/11, x = mu − sBar·1/0.05, xBar = x.
    const eps1 = da.learn(0.3);
    const sBar1 = (0.8 - 0.3) / 11;
    const x1 = Math.log(10) - sBar1 / 0.05;
    expect(eps1).toBeCloseTo(Math.exp(x1), 12);
    expect(da.finalStepSize()).toBeCloseTo(Math.exp(x1), 12);
    // t = 2, accept_stat above 1 is clipped to 1.
    const eps2 = da.learn(1.7);
    const sBar2 = (1 - 1 / 12) * sBar1 + (1 / 12) * (0.8 - 1);
    const x2 = Math.log(10) - (sBar2 * Math.sqrt(2)) / 0.05;
    expect(eps2).toBeCloseTo(Math.exp(x2), 12);
    const w = Math.pow(2, -0.75);
    expect(da.finalStepSize()).toBeCloseTo(Math.exp((1 - w) * x1 + w * x2), 12);
  });

  it("converges to the step size whose accept rate is delta", () => {
    // Synthetic accept rate exp(−ε²/4): the target δ = 0.8 is met at ε = sqrt(−4·ln 0.8).
    const da = new DualAveraging(Math.log(10));
    let eps = 1;
    for (let t = 0; t < 3000; t++) eps = da.learn(Math.exp((-eps * eps) / 4));
    expect(da.finalStepSize()).toBeCloseTo(Math.sqrt(-4 * Math.log(0.8)), 2);
  });

  it("a snapshot carries everything the next update needs", () => {
    const da = new DualAveraging(Math.log(10));
    da.learn(0.4);
    da.learn(0.9);
    expect(da.snapshot()).toEqual({ mu: Math.log(10), counter: 2, sBar: expect.any(Number), xBar: expect.any(Number) });
    // Replaying the snapshot's formulas gives the next step size.
    const { mu, counter, sBar } = da.snapshot();
    const n = counter + 1;
    const nextSBar = (1 - 1 / (n + 10)) * sBar + (1 / (n + 10)) * (0.8 - 0.6);
    expect(da.learn(0.6)).toBeCloseTo(Math.exp(mu - (nextSBar * Math.sqrt(n)) / 0.05), 12);
  });

  it("restarts the history but keeps the new mu", () => {
    const da = new DualAveraging(0);
    da.learn(0.1);
    da.mu = Math.log(3);
    da.restart();
    const fresh = new DualAveraging(Math.log(3));
    expect(da.learn(0.5)).toBe(fresh.learn(0.5));
  });
});

describe("Welford estimators", () => {
  it("match the two-pass (co)variance", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 3, maxLength: 3 }), { minLength: 2, maxLength: 40 }), (rows) => {
        const n = rows.length;
        const diag = new WelfordDiag(3);
        const dense = new WelfordDense(3);
        for (const r of rows) {
          diag.add(Float64Array.from(r));
          dense.add(Float64Array.from(r));
        }
        const mean = [0, 1, 2].map((i) => rows.reduce((s, r) => s + r[i]!, 0) / n);
        const cov = (i: number, j: number): number => rows.reduce((s, r) => s + (r[i]! - mean[i]!) * (r[j]! - mean[j]!), 0) / (n - 1);
        const var3 = new Float64Array(3);
        const cov9 = new Float64Array(9);
        diag.variance(var3);
        dense.covariance(cov9);
        for (let i = 0; i < 3; i++) {
          expect(var3[i]!).toBeCloseTo(cov(i, i), 6);
          for (let j = 0; j < 3; j++) expect(cov9[3 * i + j]!).toBeCloseTo(cov(i, j), 6);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("regularize as Stan: (n/(n+5))·Σ + 1e-3·(5/(n+5))·I", () => {
    const d = Float64Array.from([2, 4]);
    regularize(d, 20, 2, false);
    expect(d[0]).toBeCloseTo((20 / 25) * 2 + 1e-3 * (5 / 25), 15);
    expect(d[1]).toBeCloseTo((20 / 25) * 4 + 1e-3 * (5 / 25), 15);
    const m = Float64Array.from([2, 1, 1, 4]);
    regularize(m, 20, 2, true);
    expect(Array.from(m)).toEqual([(20 / 25) * 2 + 1e-3 * 0.2, 0.8, 0.8, (20 / 25) * 4 + 1e-3 * 0.2]);
  });
});

describe("step-size search", () => {
  function normal(sd: number): BatchedDensity {
    return {
      dim: 1,
      logpGrad(q, lp, grad, active) {
        for (let c = 0; c < lp.length; c++) {
          if (active && !active[c]) continue;
          lp[c] = (-0.5 * q[c]! * q[c]!) / (sd * sd);
          grad[c] = -q[c]! / (sd * sd);
        }
      },
    };
  }

  it("scales with the target and restores the starting point", () => {
    for (const sd of [1e-3, 1, 1e3]) {
      const density = normal(sd);
      const batch = new ChainBatch(4, 1);
      const searches = [0, 1, 2, 3].map((c) => new StepSizeSearch(chainContext(batch, { row: c, id: c }, seedKey(8), new Metric("diag", 1))));
      batch.q.set([0.5 * sd, -0.2 * sd, 1.5 * sd, 0]);
      density.logpGrad(batch.q, batch.lp, batch.grad);
      const q0 = Float64Array.from(batch.q);
      for (let c = 0; c < 4; c++) batch.active[c] = searches[c]!.begin(0, 1) ? 1 : 0;
      driveBatch(density, batch, searches);
      expect(Array.from(batch.q)).toEqual(Array.from(q0));
      for (const s of searches) {
        // One leapfrog step of a 1-D Gaussian is stable for ε < 2·sd; the search stops within a
        // doubling or two of where the energy error crosses log 0.8, so ε/sd stays of order one.
        expect(s.stepSize / sd).toBeGreaterThan(0.05);
        expect(s.stepSize / sd).toBeLessThanOrEqual(8);
      }
    }
  });
});
