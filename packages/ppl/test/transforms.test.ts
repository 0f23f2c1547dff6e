import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { add, checkGrad, constant, exp, interpret, mul, param, sum, type Bindings, type Node } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/internals";
import {
  choleskyCorr, choleskyFactorCov, columnStochastic, corrMatrix, covMatrix, interval, lower, ModelError, offsetMultiplier, ordered,
  positive, positiveOrdered, real, rowStochastic, simplex, sumToZero, unitInterval, unitVector, upper, type Constraint,
} from "../src/index.ts";
import { isSymmetricPositiveDefinite } from "../src/internals.ts";

const uArb = (n: number, r = 3) => fc.array(fc.double({ min: -r, max: r, noNaN: true }), { minLength: n, maxLength: n });

/** log |det| of a square matrix (row-major) by Gaussian elimination with partial pivoting. */
function logAbsDet(a: number[], n: number): number {
  const m = [...a];
  let s = 0;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r * n + c]!) > Math.abs(m[p * n + c]!)) p = r;
    if (p !== c) for (let k = 0; k < n; k++) [m[c * n + k], m[p * n + k]] = [m[p * n + k]!, m[c * n + k]!];
    const piv = m[c * n + c]!;
    s += Math.log(Math.abs(piv));
    for (let r = c + 1; r < n; r++) {
      const f = m[r * n + c]! / piv;
      for (let k = c; k < n; k++) m[r * n + k]! -= f * m[c * n + k]!;
    }
  }
  return s;
}

/** JᵀJ of a rows×n matrix (row-major), n×n. */
function gram(j: number[], rows: number, n: number): number[] {
  const g = new Array<number>(n * n).fill(0);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) for (let r = 0; r < rows; r++) g[a * n + b]! += j[r * n + a]! * j[r * n + b]!;
  return g;
}

interface Case {
  name: string;
  constraint: Constraint;
  shape: number[];
  /** Coordinates of the constrained value that form a chart (as many as unconstrained values). */
  chart: (x: Float64Array) => number[];
  /** True when x satisfies the constraint. */
  valid: (x: Float64Array, b: Bindings) => boolean;
  /** Extra bindings (node-valued bounds). */
  bindings?: Bindings;
  /**
   * "embedded": log|J| is the volume on the constrained manifold, √det(JᵀJ) of the map into all
   * its coordinates (the isometric sum-to-zero), rather than |det| of the chart's square Jacobian.
   */
  volume?: "embedded";
}

const all = (x: Float64Array) => Array.from(x);
const within = (lo: number, hi: number) => (x: Float64Array) => x.every((v) => v > lo && v < hi);
const increasing = (x: Float64Array) => x.every((v, i) => i === 0 || v > x[i - 1]!);
const boundLo = param("lo", [3]);

/** Strictly lower entries of a K×K matrix, row-major (Stan's order of the partial correlations). */
const strictLower = (k: number) => (x: Float64Array) => {
  const out: number[] = [];
  for (let i = 0; i < k; i++) for (let j = 0; j < i; j++) out.push(x[i * k + j]!);
  return out;
};
const isCholeskyCorr = (k: number) => (x: Float64Array) => {
  for (let i = 0; i < k; i++) {
    let norm = 0;
    for (let j = 0; j < k; j++) {
      norm += x[i * k + j]! ** 2;
      if (j > i && x[i * k + j] !== 0) return false;
    }
    if (!(Math.abs(norm - 1) < 1e-9) || !(x[i * k + i]! >= 0)) return false;
  }
  return true;
};

/** Entries on and below the diagonal of the first N columns of an M×N matrix, row-major (Stan's Cholesky-factor order). */
const lowerWithDiagonal = (m: number, n: number) => (x: Float64Array) => {
  const out: number[] = [];
  for (let i = 0; i < m; i++) for (let j = 0; j <= Math.min(i, n - 1); j++) out.push(x[i * n + j]!);
  return out;
};
/** True when the K×K matrix is exactly symmetric and has a Cholesky factor with positive pivots. */
const symmetricPositiveDefinite = (k: number) => (x: Float64Array) => isSymmetricPositiveDefinite(x, k);
const isCorrelation = (k: number) => (x: Float64Array) =>
  symmetricPositiveDefinite(k)(x) && Array.from({ length: k }, (_, i) => x[i * k + i]).every((d) => d === 1);
const isCholeskyFactor = (m: number, n: number) => (x: Float64Array) =>
  x.every((v, f) => (f % n > Math.floor(f / n) ? v === 0 : f % n === Math.floor(f / n) ? v > 0 : Number.isFinite(v)));
/** The entries of an R×C matrix less the last of each row (axis 0) or of each column (axis 1). */
const dropLast = (r: number, c: number, axis: 0 | 1) => (x: Float64Array) =>
  Array.from(x).filter((_, f) => (axis === 0 ? f % c !== c - 1 : Math.floor(f / c) !== r - 1));
/** True when every row (axis 0) or column (axis 1) of the R×C matrix is a simplex. */
const isStochastic = (r: number, c: number, axis: 0 | 1) => (x: Float64Array) => {
  const sums = new Array<number>(axis === 0 ? r : c).fill(0);
  x.forEach((v, f) => (sums[axis === 0 ? Math.floor(f / c) : f % c]! += v));
  return x.every((v) => v >= 0) && sums.every((s) => Math.abs(s - 1) < 1e-12);
};
const sumsToZero = (x: Float64Array) => Math.abs(x.reduce((a, b) => a + b, 0)) < 1e-12 * (1 + Math.max(...Array.from(x, Math.abs)));
const mu = param("mu", [3]);
const logTau = param("logTau", []);

const cases: Case[] = [
  { name: "real", constraint: real(), shape: [3], chart: all, valid: (x) => x.every(Number.isFinite) },
  { name: "positive", constraint: positive(), shape: [3], chart: all, valid: within(0, Infinity) },
  { name: "lower(-2) on a matrix", constraint: lower(-2), shape: [2, 2], chart: all, valid: within(-2, Infinity) },
  { name: "upper(3)", constraint: upper(3), shape: [3], chart: all, valid: within(-Infinity, 3) },
  { name: "interval(-1, 4)", constraint: interval(-1, 4), shape: [3], chart: all, valid: within(-1, 4) },
  {
    name: "interval with node bounds (lo, lo + 2)",
    constraint: interval(boundLo, add(boundLo, 2)),
    shape: [3],
    chart: all,
    bindings: { lo: [-1, 0.5, 3] },
    valid: (x) => [-1, 0.5, 3].every((lo, i) => x[i]! > lo && x[i]! < lo + 2),
  },
  { name: "unitInterval", constraint: unitInterval(), shape: [2], chart: all, valid: within(0, 1) },
  { name: "ordered", constraint: ordered(), shape: [4], chart: all, valid: increasing },
  { name: "positiveOrdered", constraint: positiveOrdered(), shape: [4], chart: all, valid: (x) => increasing(x) && x[0]! > 0 },
  {
    name: "simplex",
    constraint: simplex(),
    shape: [4],
    chart: (x) => Array.from(x.subarray(0, 3)),
    valid: (x) => x.every((v) => v >= 0) && Math.abs(x.reduce((a, b) => a + b, 0) - 1) < 1e-12,
  },
  { name: "choleskyCorr 3×3", constraint: choleskyCorr(), shape: [3, 3], chart: strictLower(3), valid: isCholeskyCorr(3) },
  { name: "choleskyCorr 4×4", constraint: choleskyCorr(), shape: [4, 4], chart: strictLower(4), valid: isCholeskyCorr(4) },
  { name: "covMatrix 1×1", constraint: covMatrix(), shape: [1, 1], chart: all, valid: symmetricPositiveDefinite(1) },
  { name: "covMatrix 3×3", constraint: covMatrix(), shape: [3, 3], chart: lowerWithDiagonal(3, 3), valid: symmetricPositiveDefinite(3) },
  { name: "covMatrix 4×4", constraint: covMatrix(), shape: [4, 4], chart: lowerWithDiagonal(4, 4), valid: symmetricPositiveDefinite(4) },
  { name: "choleskyFactorCov 3×3", constraint: choleskyFactorCov(), shape: [3, 3], chart: lowerWithDiagonal(3, 3), valid: isCholeskyFactor(3, 3) },
  { name: "choleskyFactorCov 4×2", constraint: choleskyFactorCov(), shape: [4, 2], chart: lowerWithDiagonal(4, 2), valid: isCholeskyFactor(4, 2) },
  { name: "corrMatrix 2×2", constraint: corrMatrix(), shape: [2, 2], chart: strictLower(2), valid: isCorrelation(2) },
  { name: "corrMatrix 3×3", constraint: corrMatrix(), shape: [3, 3], chart: strictLower(3), valid: isCorrelation(3) },
  { name: "corrMatrix 4×4", constraint: corrMatrix(), shape: [4, 4], chart: strictLower(4), valid: isCorrelation(4) },
  { name: "offsetMultiplier(2, 0.5) on a matrix", constraint: offsetMultiplier(2, 0.5), shape: [2, 2], chart: all, valid: (x) => x.every(Number.isFinite) },
  {
    name: "offsetMultiplier with node offset and multiplier (mu, exp(logTau))",
    constraint: offsetMultiplier(mu, exp(logTau)),
    shape: [3],
    chart: all,
    bindings: { mu: [-1, 0.5, 3], logTau: [0.7] },
    valid: (x) => x.every(Number.isFinite),
  },
  { name: "sumToZero of length 2", constraint: sumToZero(), shape: [2], chart: all, valid: sumsToZero, volume: "embedded" },
  { name: "sumToZero of length 5", constraint: sumToZero(), shape: [5], chart: all, valid: sumsToZero, volume: "embedded" },
  { name: "rowStochastic 2×3", constraint: rowStochastic(), shape: [2, 3], chart: dropLast(2, 3, 0), valid: isStochastic(2, 3, 0) },
  { name: "columnStochastic 3×2", constraint: columnStochastic(), shape: [3, 2], chart: dropLast(3, 2, 1), valid: isStochastic(3, 2, 1) },
];

describe("transforms: round trip, constraint, log-Jacobian against the numerical Jacobian", () => {
  for (const c of cases) {
    test(c.name, () => {
      const t = c.constraint.bind(c.shape);
      const n = t.unconstrainedSize;
      const u = param("u", [n]);
      const fwd = t.forward(u);
      const logJ = t.logJacobian(u);
      expect(fwd.shape).toEqual(c.shape);
      const extra = c.bindings ?? {};
      const forwardAt = (v: ArrayLike<number>) => interpret([fwd], { ...extra, u: Float64Array.from(v) })[0]!.data;
      fc.assert(
        fc.property(uArb(n), (uv) => {
          const x = forwardAt(uv);
          expect(c.valid(x, extra)).toBe(true);
          // Round trip through the graph inverse.
          const back = interpret([t.inverse(constant(x, c.shape))], extra)[0]!.data;
          uv.forEach((v, i) => expect(Math.abs(back[i]! - v)).toBeLessThan(1e-7 * (1 + Math.abs(v))));
          // Central differences of the chart coordinates.
          const h = 1e-6;
          const rows = c.chart(x).length;
          const jac: number[] = new Array(rows * n).fill(0);
          for (let j = 0; j < n; j++) {
            const up = [...uv], dn = [...uv];
            up[j]! += h;
            dn[j]! -= h;
            const fu = c.chart(forwardAt(up)), fd = c.chart(forwardAt(dn));
            for (let i = 0; i < rows; i++) jac[i * n + j] = (fu[i]! - fd[i]!) / (2 * h);
          }
          const want = c.volume === "embedded" ? 0.5 * logAbsDet(gram(jac, rows, n), n) : logAbsDet(jac, n);
          const got = interpret([logJ], { ...extra, u: Float64Array.from(uv) })[0]!.data[0]!;
          expect(Math.abs(got - want)).toBeLessThan(1e-5 * (1 + Math.abs(got)));
        }),
        { numRuns: 25, seed: 31 },
      );
    });
  }

  test("extreme unconstrained values still give valid constrained values", () => {
    for (const c of cases) {
      const t = c.constraint.bind(c.shape);
      const u = param("u", [t.unconstrainedSize]);
      const fwd = t.forward(u);
      const logJ = t.logJacobian(u);
      fc.assert(
        fc.property(uArb(t.unconstrainedSize, 30), (uv) => {
          const [x, lj] = interpret([fwd, logJ], { ...(c.bindings ?? {}), u: Float64Array.from(uv) });
          expect(x!.data.every((v) => !Number.isNaN(v))).toBe(true);
          expect(Number.isNaN(lj!.data[0])).toBe(false);
          if (/^(simplex|cholesky|rowStochastic|columnStochastic|sumToZero)/.test(c.name)) expect(c.valid(x!.data, {})).toBe(true);
        }),
        { numRuns: 20, seed: 37 },
      );
    }
  });

  test("the gradient of forward and log-Jacobian (as the sampler differentiates them) matches finite differences", () => {
    for (const c of cases.filter((k) => /^(cov|choleskyFactor|corr|offset|sumToZero|row|column)/.test(k.name))) {
      const t = c.constraint.bind(c.shape);
      const u = param("u", [t.unconstrainedSize]);
      const weights = constant(Array.from({ length: sizeOf(c.shape) }, (_, i) => Math.cos(1 + 0.7 * i)), c.shape);
      const out = add(sum(mul(weights, t.forward(u))), t.logJacobian(u));
      const wrt = [u, ...Object.keys(c.bindings ?? {}).map((k) => (k === "mu" ? mu : k === "logTau" ? logTau : boundLo))];
      fc.assert(
        fc.property(uArb(t.unconstrainedSize, 2), (uv) => {
          const r = checkGrad(out, wrt, { ...(c.bindings ?? {}), u: Float64Array.from(uv) }, { rtol: 1e-5 });
          expect(r.ok, `${c.name}: ${r.message}`).toBe(true);
        }),
        { numRuns: 10, seed: 43 },
      );
    }
  });

  test("unit vector: norm 1, forward(inverse(x)) = x, and the −|u|²/2 radius term", () => {
    const t = unitVector().bind([3]);
    const u = param("u", [3]);
    fc.assert(
      fc.property(uArb(3).filter((v) => Math.hypot(...v) > 0.1), (uv) => {
        const [x, lj] = interpret([t.forward(u), t.logJacobian(u)], { u: uv });
        expect(Math.hypot(...x!.data)).toBeCloseTo(1, 12);
        expect(lj!.data[0]).toBeCloseTo(-0.5 * uv.reduce((a, b) => a + b * b, 0), 12);
        const again = interpret([t.forward(t.inverse(constant(x!.data, [3])))], {})[0]!.data;
        x!.data.forEach((v, i) => expect(again[i]).toBeCloseTo(v, 12));
      }),
      { numRuns: 25, seed: 41 },
    );
  });

  test("corrMatrix reads its partial correlations column by column, as Stan's corr_matrix", () => {
    // Column order for K = 4: (2,1), (3,1), (4,1), (3,2), (4,2), (4,3) (1-based), so entry 4 is Ω[3,2].
    const t = corrMatrix().bind([4, 4]);
    const x = interpret([t.forward(constant([0, 0, 0, 0.5, 0, 0], [6]))], {})[0]!.data;
    x.forEach((v, f) => {
      const [i, j] = [Math.floor(f / 4), f % 4];
      expect(v).toBeCloseTo(i === j ? 1 : (i === 2 && j === 1) || (i === 1 && j === 2) ? Math.tanh(0.5) : 0, 14);
    });
  });

  test("stochastic matrices read their values as Stan's column-major matrix of them", () => {
    // row_stochastic[2, 3]: a 2×2 matrix of values, column-major, so entries 0 and 2 are row 1's.
    const rows = interpret([rowStochastic().bind([2, 3]).forward(constant([0.3, -1, 0.7, 2], [4]))], {})[0]!.data;
    const row1 = interpret([simplex().bind([3]).forward(constant([0.3, 0.7], [2]))], {})[0]!.data;
    const row2 = interpret([simplex().bind([3]).forward(constant([-1, 2], [2]))], {})[0]!.data;
    expect(Array.from(rows)).toEqual([...row1, ...row2]);
    // column_stochastic[3, 2]: a 2×2 matrix of values, column-major, so entries 0 and 1 are column 1's.
    const cols = interpret([columnStochastic().bind([3, 2]).forward(constant([0.3, 0.7, -1, 2], [4]))], {})[0]!.data;
    expect([cols[0], cols[2], cols[4]]).toEqual(Array.from(row1));
    expect([cols[1], cols[3], cols[5]]).toEqual(Array.from(row2));
  });

  test("simplex at u = 0 is uniform (Stan's centring)", () => {
    const t = simplex().bind([5]);
    const x = interpret([t.forward(constant(0, [4]))], {})[0]!.data;
    x.forEach((v) => expect(v).toBeCloseTo(0.2, 14));
  });
});

describe("transform shape checks are ModelErrors", () => {
  test("messages name the constraint and the fix", () => {
    expect(() => simplex().bind([])).toThrow(/simplex: needs a vector parameter of length ≥ 2, got shape \[\]; pass \{ shape: \[K\] \}/);
    expect(() => ordered().bind([2, 2])).toThrow(ModelError);
    expect(() => choleskyCorr().bind([3])).toThrow(/choleskyCorr: needs a square matrix/);
    expect(() => interval(2, 1)).toThrow(/interval: the lower bound 2 must be below the upper bound 1/);
    const bound: Node = param("b", [2]);
    expect(() => lower(bound).bind([3])).toThrow(/lower: the lower bound has shape \[2\], which does not broadcast to the parameter's shape \[3\]/);
    expect(() => covMatrix().bind([3])).toThrow(/covMatrix: needs a square matrix parameter of size ≥ 1, got shape \[3\]; pass \{ shape: \[K, K\] \}/);
    expect(() => corrMatrix().bind([1, 1])).toThrow(/corrMatrix: needs a square matrix parameter of size ≥ 2/);
    expect(() => choleskyFactorCov().bind([2, 3])).toThrow(/choleskyFactorCov: needs an M×N matrix parameter with M ≥ N ≥ 1, got shape \[2,3\]/);
    expect(() => sumToZero().bind([1])).toThrow(/sumToZero: needs a vector parameter of length ≥ 2/);
    expect(() => rowStochastic().bind([3, 1])).toThrow(/rowStochastic: needs a matrix parameter with rows of length ≥ 2, got shape \[3,1\]/);
    expect(() => columnStochastic().bind([1, 3])).toThrow(/columnStochastic: needs a matrix parameter with columns of length ≥ 2/);
    expect(() => offsetMultiplier(0, -1)).toThrow(/offsetMultiplier: the multiplier -1 must be positive and finite/);
    expect(() => offsetMultiplier(bound, 1).bind([3])).toThrow(/offsetMultiplier: the offset bound has shape \[2\]/);
  });
});
