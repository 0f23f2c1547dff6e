import { describe, expect, it } from "vitest";
import { hamiltonian, integrate, Metric, type BatchedDensity, type PhasePoint } from "../src/sampler/index.ts";
import { Purpose, seedKey, streamNormals } from "../src/random/index.ts";

const v = (...xs: number[]): Float64Array => Float64Array.from(xs);

/** Gaussian with precision matrix A (row-major): lp = −½ qᵀAq. */
function gaussian(precision: Float64Array, dim: number): BatchedDensity {
  return {
    dim,
    logpGrad(q, lp, grad, active) {
      for (let c = 0; c < lp.length; c++) {
        if (active && !active[c]) continue;
        let s = 0;
        for (let i = 0; i < dim; i++) {
          let g = 0;
          for (let j = 0; j < dim; j++) g += precision[i * dim + j]! * q[c * dim + j]!;
          grad[c * dim + i] = -g;
          s += q[c * dim + i]! * g;
        }
        lp[c] = -0.5 * s;
      }
    },
  };
}

// Correlated 2-D Gaussian: sds 1 and 2, correlation 0.9, as a precision matrix.
// Covariance [[1, 1.8], [1.8, 4]].
const det = 1 * 4 - 1.8 * 1.8;
const precision = v(4 / det, -1.8 / det, -1.8 / det, 1 / det);
const target = gaussian(precision, 2);

function point(q: Float64Array, p: Float64Array): PhasePoint {
  const z = { q: Float64Array.from(q), p: Float64Array.from(p), lp: new Float64Array(1), grad: new Float64Array(q.length) };
  target.logpGrad(z.q, z.lp, z.grad);
  return z;
}

function energy(z: PhasePoint, metric: Metric): number {
  return hamiltonian(z.lp[0]!, z.grad, z.p, metric, new Float64Array(z.q.length));
}

describe("metric", () => {
  it("computes kinetic energy and velocity for diag and dense inverse metrics", () => {
    const diag = new Metric("diag", 2, v(2, 0.5));
    const vel = new Float64Array(2);
    expect(diag.kinetic(v(1, 2), vel)).toBeCloseTo(0.5 * (2 * 1 + 0.5 * 4), 14);
    expect(Array.from(vel)).toEqual([2, 1]);
    const dense = new Metric("dense", 2, v(2, 0.5, 0.5, 1));
    expect(dense.kinetic(v(1, 2), vel)).toBeCloseTo(0.5 * (2 + 2 * 0.5 * 2 + 4), 14);
    expect(Array.from(vel)).toEqual([3, 2.5]);
  });

  it("draws momenta with covariance M = (M⁻¹)⁻¹ for a dense metric", () => {
    const inv = v(2, 0.6, 0.2, 0.6, 1, -0.3, 0.2, -0.3, 0.5);
    const metric = new Metric("dense", 3, inv);
    // M by Gauss–Jordan on the 3×3 inverse metric.
    const a = Array.from({ length: 3 }, (_, i) => [...Array.from(inv.slice(3 * i, 3 * i + 3)), ...[0, 0, 0].map((_, j) => (i === j ? 1 : 0))]);
    for (let c = 0; c < 3; c++) {
      const piv = a[c]![c]!;
      for (let j = 0; j < 6; j++) a[c]![j] = a[c]![j]! / piv;
      for (let r = 0; r < 3; r++) {
        if (r === c) continue;
        const f = a[r]![c]!;
        for (let j = 0; j < 6; j++) a[r]![j] = a[r]![j]! - f * a[c]![j]!;
      }
    }
    const m = (i: number, j: number): number => a[i]![3 + j]!;
    const n = 40_000;
    const z = new Float64Array(3);
    const p = new Float64Array(3);
    const sum = new Float64Array(9);
    const key = seedKey(11);
    for (let k = 0; k < n; k++) {
      streamNormals(key, 0, k, Purpose.Momentum, 0, z);
      metric.momentumFromNormals(z, p);
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) sum[3 * i + j] = sum[3 * i + j]! + p[i]! * p[j]!;
    }
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        // sd of a sample covariance entry of a Gaussian: sqrt((M_ii·M_jj + M_ij²)/n); z <= 4.
        const se = Math.sqrt((m(i, i) * m(j, j) + m(i, j) ** 2) / n);
        expect(Math.abs(sum[3 * i + j]! / n - m(i, j))).toBeLessThan(4 * se);
      }
    }
  });

  it("rejects an inverse metric that is not positive definite", () => {
    expect(() => new Metric("dense", 2, v(1, 2, 2, 1))).toThrow(RangeError);
    expect(() => new Metric("diag", 2, v(1, 0))).toThrow(RangeError);
  });
});

describe("leapfrog", () => {
  for (const metric of [new Metric("diag", 2, v(0.8, 3)), new Metric("dense", 2, v(1, 1.5, 1.5, 4))]) {
    it(`has energy error of order ε² (${metric.kind} metric)`, () => {
      const time = 1.2;
      const errors = [0.04, 0.02, 0.01].map((eps) => {
        const z = point(v(0.7, -1.3), v(1.1, 0.4));
        const h0 = energy(z, metric);
        integrate(target, z, eps, metric, Math.round(time / eps));
        return Math.abs(energy(z, metric) - h0);
      });
      // Halving ε should cut the error by 4 (second-order method); allow the O(ε⁴) remainder.
      expect(errors[0]! / errors[1]!).toBeGreaterThan(3.6);
      expect(errors[0]! / errors[1]!).toBeLessThan(4.4);
      expect(errors[1]! / errors[2]!).toBeGreaterThan(3.8);
      expect(errors[1]! / errors[2]!).toBeLessThan(4.2);
    });

    it(`is exactly reversible (${metric.kind} metric)`, () => {
      const q0 = v(0.3, 2.1);
      const p0 = v(-0.9, 0.25);
      const z = point(q0, p0);
      integrate(target, z, 0.15, metric, 50);
      for (let i = 0; i < 2; i++) z.p[i] = -z.p[i]!;
      integrate(target, z, 0.15, metric, 50);
      for (let i = 0; i < 2; i++) {
        expect(Math.abs(z.q[i]! - q0[i]!)).toBeLessThan(1e-12);
        expect(Math.abs(-z.p[i]! - p0[i]!)).toBeLessThan(1e-12);
      }
    });
  }

  it("moves the same way under a dense metric that happens to be diagonal", () => {
    const a = point(v(0.5, 0.5), v(1, -1));
    const b = point(v(0.5, 0.5), v(1, -1));
    integrate(target, a, 0.1, new Metric("diag", 2, v(0.5, 2)), 20);
    integrate(target, b, 0.1, new Metric("dense", 2, v(0.5, 0, 0, 2)), 20);
    expect(Array.from(a.q)).toEqual(Array.from(b.q));
    expect(Array.from(a.p)).toEqual(Array.from(b.p));
  });

  it("integrates backwards with a negative step", () => {
    const metric = new Metric("diag", 2);
    const z = point(v(1, 1), v(0.2, 0.3));
    integrate(target, z, 0.1, metric, 10);
    integrate(target, z, -0.1, metric, 10);
    expect(z.q[0]).toBeCloseTo(1, 12);
    expect(z.q[1]).toBeCloseTo(1, 12);
  });
});
