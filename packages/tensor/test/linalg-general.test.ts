/**
 * General linear algebra (solve, inverse, logDeterminant / determinant, eighSymmetric) against
 * closed forms and the identities that define them, on the reference interpreter and the compiled
 * CPU path, at small random sizes and at posterior sizes (n = 40–50); singular and non-finite
 * inputs give the documented values, never an exception.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import { compiledBackend } from "../src/cpu/compiled/backend.ts";
import type { Node } from "../src/index.ts";

const values = (n: Node, bindings: T.Bindings = {}) => Array.from(T.interpret([n], bindings)[0]!.data);
const matrix = (v: readonly number[], n: number) => T.constant(v, [n, n]);
const maxAbs = (v: readonly number[]) => v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
const maxDiff = (a: readonly number[], b: readonly number[]) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
const eyeValues = (n: number): number[] => Array.from({ length: n * n }, (_, f) => (f % (n + 1) === 0 ? 1 : 0));

// Deterministic pseudo-random entries in [−1, 1).
function entries(count: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  });
}

// An orthogonal n×n matrix: a product of three Householder reflections of random vectors.
function orthogonal(n: number, seed: number): number[] {
  let q = eyeValues(n);
  for (let r = 0; r < 3; r++) {
    const v = entries(n, seed + r);
    const vv = v.reduce((s, x) => s + x * x, 0);
    const h = Array.from({ length: n * n }, (_, f) => (f % (n + 1) === 0 ? 1 : 0) - (2 * v[Math.floor(f / n)]! * v[f % n]!) / vv);
    const next = new Array<number>(n * n).fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) next[i * n + j] += q[i * n + k]! * h[k * n + j]!;
    q = next;
  }
  return q;
}

const squareArb = (min: number, max: number) =>
  fc.integer({ min, max }).chain((n) => fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: n * n, maxLength: n * n }).map((v) => ({ n, v })));

describe("solve and inverse", () => {
  it("A·solve(A, B) = B and A·inverse(A) = I for matrices that need pivoting", () => {
    fc.assert(
      fc.property(squareArb(1, 6), fc.integer({ min: 1, max: 3 }), ({ n, v }, m) => {
        // The reversal permutation times 3 plus small entries: a zero-free but pivot-hungry, well-conditioned matrix.
        const a = v.map((x, f) => 0.3 * x + (Math.floor(f / n) + (f % n) === n - 1 ? 3 : 0));
        const A = matrix(a, n), B = T.constant(entries(n * m, n + m), [n, m]);
        const [ax, ai, x] = T.interpret([T.matmul(A, T.solve(A, B)), T.matmul(A, T.inverse(A)), T.solve(A, B)], {});
        expect(maxDiff(Array.from(ax!.data), entries(n * m, n + m))).toBeLessThan(1e-13);
        expect(maxDiff(Array.from(ai!.data), eyeValues(n))).toBeLessThan(1e-13);
        expect(x!.shape).toEqual([n, m]);
      }),
      { numRuns: 60 },
    );
  });

  it("solves a system whose first pivot is zero, a vector right-hand side and broadcast batches", () => {
    // [[0, 1], [1, 0]] x = [2, 3] has x = [3, 2]: without row swaps the elimination would divide by 0.
    expect(values(T.solve(matrix([0, 1, 1, 0], 2), T.constant([2, 3], [2])))).toEqual([3, 2]);
    const A = T.constant([2, 0, 0, 4, 1, 1, 0, 1], [2, 2, 2]);
    const x = T.solve(A, T.constant([2, 4], [2, 1]));
    expect(x.shape).toEqual([2, 2, 1]);
    expect(values(x)).toEqual([1, 1, -2, 4]);
  });

  it("gives non-finite entries for a singular matrix, and never throws", () => {
    const S = matrix([1, 2, 2, 4], 2);
    const x = values(T.solve(S, T.constant([1, 1], [2])));
    expect(x.some((e) => !Number.isFinite(e))).toBe(true);
    expect(values(T.inverse(matrix([0, 0, 0, 0], 2))).every((e) => !Number.isFinite(e))).toBe(true);
  });

  it("names the shapes and the fix in its errors", () => {
    expect(() => T.solve(T.param("a", [3, 4]), T.param("b", [3]))).toThrow(/solve: needs square matrices .*\[3,4\].*\[\.\.\., n, n\]/);
    expect(() => T.solve(T.param("a", [3, 3]), T.param("b", [4, 2]))).toThrow(/B needs 3 rows/);
    expect(() => T.solve(T.param("a", [2, 3, 3]), T.param("b", [4, 3, 1]))).toThrow(/solve: batch dimensions/);
    expect(() => T.inverse(T.param("a", [3]))).toThrow(/inverse: needs square matrices/);
    expect(() => T.logDeterminant(T.param("a", [2, 3]))).toThrow(/logDeterminant: needs square matrices/);
    expect(() => T.eighSymmetric(T.param("a", [2, 3]))).toThrow(/eighSymmetric: needs square matrices/);
  });
});

describe("logDeterminant and determinant", () => {
  it("match the 2×2 and 3×3 closed forms, sign included", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 9, maxLength: 9 }), (v) => {
        const [a, b, c, d, e, f, g, h, i] = v as [number, number, number, number, number, number, number, number, number];
        const det2 = a * d - b * c;
        const det3 = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
        const [d2, l2, d3, l3, s3] = T.interpret(
          [T.determinant(matrix([a, b, c, d], 2)), T.logDeterminant(matrix([a, b, c, d], 2)), T.determinant(matrix(v, 3)),
            T.logDeterminant(matrix(v, 3)), T.signLogDeterminant(matrix(v, 3)).sign],
          {},
        ).map((t) => t.data[0]!);
        expect(Math.abs(d2! - det2)).toBeLessThan(1e-13);
        expect(Math.abs(d3! - det3)).toBeLessThan(1e-12);
        if (Math.abs(det2) > 1e-6) expect(Math.abs(l2! - Math.log(Math.abs(det2)))).toBeLessThan(1e-9);
        if (Math.abs(det3) > 1e-6) {
          expect(Math.abs(l3! - Math.log(Math.abs(det3)))).toBeLessThan(1e-9);
          expect(s3).toBe(Math.sign(det3));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("counts row swaps in the sign: a permutation matrix's determinant is its parity", () => {
    expect(values(T.determinant(matrix([0, 1, 0, 0, 0, 1, 1, 0, 0], 3)))).toEqual([1]);
    expect(values(T.determinant(matrix([0, 1, 0, 1, 0, 0, 0, 0, 1], 3)))).toEqual([-1]);
  });

  it("is −inf (sign 0, det 0) for a singular matrix and NaN for a NaN entry", () => {
    const { sign, logAbs } = T.signLogDeterminant(T.constant([1, 2, 2, 4, 0, 0, 3, 1], [2, 2, 2]));
    expect(values(logAbs)).toEqual([-Infinity, -Infinity]);
    expect(values(sign).map(Math.abs)).toEqual([0, 0]);
    expect(values(T.determinant(matrix([1, 2, 2, 4], 2)))).toEqual([0]);
    expect(values(T.logDeterminant(matrix([1, NaN, 2, 4], 2)))).toEqual([NaN]);
  });

  it("equals logdetSpd on symmetric positive-definite matrices", () => {
    const n = 6, m = entries(n * n, 3);
    const spd = T.add(T.matmul(matrix(m, n), T.mT(matrix(m, n))), T.identity(n));
    expect(Math.abs(values(T.logDeterminant(spd))[0]! - values(T.logdetSpd(spd))[0]!)).toBeLessThan(1e-12);
  });
});

describe("eighSymmetric", () => {
  it("reconstructs A = V·diag(w)·Vᵀ with orthonormal V, ascending w and each vector's largest entry positive", () => {
    fc.assert(
      fc.property(squareArb(1, 7), ({ n, v }) => {
        const A = T.add(matrix(v, n), T.mT(matrix(v, n)));
        const { values: w, vectors: V } = T.eighSymmetric(A);
        const [wv, Vv, rec, gram, a] = T.interpret([w, V, T.matmul(T.mul(V, T.reshape(w, [1, n])), T.mT(V)), T.matmul(T.mT(V), V), A], {});
        const scale = 1 + maxAbs(Array.from(a!.data));
        expect(maxDiff(Array.from(rec!.data), Array.from(a!.data))).toBeLessThan(1e-13 * scale * n);
        expect(maxDiff(Array.from(gram!.data), eyeValues(n))).toBeLessThan(1e-13 * n);
        const ws = Array.from(wv!.data);
        ws.slice(1).forEach((x, i) => expect(x).toBeGreaterThanOrEqual(ws[i]!));
        for (let j = 0; j < n; j++) {
          const col = Array.from({ length: n }, (_, i) => Vv!.data[i * n + j]!);
          const big = col.reduce((b, x) => (Math.abs(x) > Math.abs(b) ? x : b), 0);
          expect(big).toBeGreaterThan(0);
        }
      }),
      { numRuns: 80 },
    );
  });

  it("gives the 2×2 closed form, reads only the symmetric part, and handles repeated and non-finite inputs", () => {
    // [[a, b], [b, c]]: (a + c)/2 ∓ √(((a − c)/2)² + b²).
    const [a, b, c] = [1.5, -0.7, -2];
    const r = Math.sqrt(((a - c) / 2) ** 2 + b * b);
    const got = values(T.eigenvaluesSym(matrix([a, b - 0.3, b + 0.3, c], 2)));
    expect(maxDiff(got, [(a + c) / 2 - r, (a + c) / 2 + r])).toBeLessThan(1e-15);
    expect(values(T.eigenvaluesSym(T.mul(T.identity(3), 2)))).toEqual([2, 2, 2]);
    expect(values(T.eigenvectorsSym(T.identity(3)))).toEqual(eyeValues(3));
    expect(values(T.eigenvaluesSym(matrix([1, Infinity, 0, 1], 2))).every(Number.isNaN)).toBe(true);
  });

  it("gives a finite eigenvalue gradient at repeated eigenvalues, as documented (the eigenvectors' is undefined there)", () => {
    const x = T.param("x", [2, 2]);
    const [g] = T.grad(T.sum(T.eigenvaluesSym(x)), [x]);
    // Σ eigenvalues = trace: the gradient is I even where they coincide.
    expect(values(g!, { x: [1, 0, 0, 1] })).toEqual([1, 0, 0, 1]);
  });
});

describe("at posterior sizes (n = 40–50), on the reference interpreter and the compiled CPU path alike", () => {
  const n = 48;
  const Q = orthogonal(n, 11);
  const spectrum = Array.from({ length: n }, (_, k) => -3 + 0.25 * k + 0.01 * Math.sin(k));
  // A = Q·diag(λ)·Qᵀ: the eigenvalues are known exactly, and det A = Πλ.
  const A = T.matmul(T.mul(matrix(Q, n), T.constant(spectrum, [1, n])), T.mT(matrix(Q, n)));
  const xTrue = entries(n, 5);
  const b = T.matmul(A, T.constant(xTrue, [n]));
  const outputs = [T.eigenvaluesSym(A), T.solve(A, b), T.logDeterminant(A), T.signLogDeterminant(A).sign, T.matmul(A, T.inverse(A))];

  it("recovers the spectrum, the solution and log|det| = Σ log|λ|", async () => {
    const exe = await compiledBackend().compile(outputs);
    for (const res of [T.interpret(outputs, {}), await exe.run({})]) {
      const [w, x, ld, sign, ai] = res.map((t) => Array.from(t.data));
      expect(maxDiff(w!, spectrum)).toBeLessThan(1e-12);
      expect(maxDiff(x!, xTrue)).toBeLessThan(1e-10);
      expect(Math.abs(ld![0]! - spectrum.reduce((s, l) => s + Math.log(Math.abs(l)), 0))).toBeLessThan(1e-10);
      // 12 negative eigenvalues (λ_k < 0 for k < 12): det > 0.
      expect(sign).toEqual([spectrum.filter((l) => l < 0).length % 2 === 0 ? 1 : -1]);
      expect(maxDiff(ai!, eyeValues(n))).toBeLessThan(1e-10);
    }
  });

  it("differentiates log|det| of a 40×40 matrix as A⁻ᵀ", () => {
    const m = 40;
    const x = T.param("x", [m, m]);
    const [g] = T.grad(T.logDeterminant(x), [x]);
    const a = entries(m * m, 21).map((v, f) => v + (f % (m + 1) === 0 ? 6 : 0));
    const got = values(g!, { x: a });
    const invT = values(T.mT(T.inverse(matrix(a, m))));
    expect(maxDiff(got, invT)).toBeLessThan(1e-14);
  });
});
