/**
 * The fluent API: every method is its functional function (the same interned node on random
 * inputs), log10 and the 1-based indexing functions give the values they document, and a 0-based
 * habit (at(0)) fails loudly.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import { type DType, type FluentMethods, type Node, type Operand } from "../src/index.ts";
import { FLUENT_METHODS } from "../src/internals.ts";

/** What one fast-check run draws; each case reads the parts it needs. */
interface Draw {
  x: Node;
  positive: Node;
  other: Operand;
  ints: Node;
  intOther: Operand;
  axis: number;
  keepdims: boolean;
  perm: number[];
  first: number;
  last: number;
  positions: Node;
  spd: Node;
  lowerTri: Node;
  rhs: Node;
  matrix: Node;
  order: number;
  dtype: DType;
}

const dims = fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 3 });
const floatDtype = fc.constantFrom<DType>("f64", "f32");
const values = (n: number, lo = -3, hi = 3) => fc.array(fc.double({ min: lo, max: hi, noNaN: true }), { minLength: n, maxLength: n });

const draw: fc.Arbitrary<Draw> = dims.chain((shape) => {
  const size = shape.reduce((a, b) => a * b, 1);
  const n = shape[0]!;
  return fc.record({
    x: fc.tuple(values(size), floatDtype).map(([v, dt]) => T.constant(v, shape, dt)),
    positive: values(size, 0.1, 5).map((v) => T.constant(v, shape)),
    // The second operand: a number, a node of the same shape, or one that broadcasts (a trailing part of the shape).
    other: fc.oneof(
      fc.double({ min: -3, max: 3, noNaN: true }),
      values(size).map((v) => T.constant(v, shape)),
      fc.integer({ min: 0, max: shape.length - 1 }).chain((k) => {
        const s = shape.slice(k);
        return values(s.reduce((a, b) => a * b, 1)).map((v) => T.constant(v, s));
      }),
    ),
    ints: fc.array(fc.integer({ min: -50, max: 50 }), { minLength: size, maxLength: size }).map((v) => T.constant(v, shape, "i32")),
    intOther: fc.oneof(
      fc.integer({ min: -7, max: 7 }),
      fc.array(fc.integer({ min: -7, max: 7 }), { minLength: size, maxLength: size }).map((v) => T.constant(v, shape, "i32")),
    ),
    axis: fc.integer({ min: -shape.length, max: shape.length - 1 }),
    keepdims: fc.boolean(),
    perm: fc.shuffledSubarray(shape.map((_, i) => i), { minLength: shape.length, maxLength: shape.length }),
    first: fc.integer({ min: 1, max: n }),
    last: fc.integer({ min: 1, max: n }),
    positions: fc.array(fc.integer({ min: 1, max: n }), { minLength: 1, maxLength: 4 }).map((p) => T.constant(p, [p.length], "i32")),
    spd: fc.integer({ min: 1, max: 3 }).chain((m) => values(m * m).map((v) => {
      const a = T.constant(v, [m, m]);
      return T.add(T.matmul(a, T.mT(a)), T.constant(Array.from({ length: m * m }, (_, i) => (i % (m + 1) === 0 ? m : 0)), [m, m]));
    })),
    lowerTri: fc.constant(T.constant([2, 0, 0, 1, 3, 0, -1, 0.5, 4], [3, 3])),
    rhs: values(6).map((v) => T.constant(v, [3, 2])),
    matrix: values(size * 2).map((v) => T.constant(v, [...shape.slice(0, -1), shape[shape.length - 1]!, 2])),
    order: fc.integer({ min: 0, max: 3 }),
    dtype: fc.constantFrom<DType>("f64", "f32", "i32"),
  });
});

type Case = (d: Draw) => [method: Node, functional: Node];

// One case per method, typed against FluentMethods so that a method without a case fails to compile.
const CASES: Record<keyof FluentMethods, Case> = {
  neg: ({ x }) => [x.neg(), T.neg(x)],
  abs: ({ x }) => [x.abs(), T.abs(x)],
  sign: ({ x }) => [x.sign(), T.sign(x)],
  exp: ({ x }) => [x.exp(), T.exp(x)],
  expm1: ({ x }) => [x.expm1(), T.expm1(x)],
  log: ({ positive: p }) => [p.log(), T.log(p)],
  log1p: ({ positive: p }) => [p.log1p(), T.log1p(p)],
  log10: ({ positive: p }) => [p.log10(), T.log10(p)],
  sqrt: ({ positive: p }) => [p.sqrt(), T.sqrt(p)],
  rsqrt: ({ positive: p }) => [p.rsqrt(), T.rsqrt(p)],
  square: ({ x }) => [x.square(), T.square(x)],
  reciprocal: ({ x }) => [x.reciprocal(), T.reciprocal(x)],
  sin: ({ x }) => [x.sin(), T.sin(x)],
  cos: ({ x }) => [x.cos(), T.cos(x)],
  tanh: ({ x }) => [x.tanh(), T.tanh(x)],
  sigmoid: ({ x }) => [x.sigmoid(), T.sigmoid(x)],
  softplus: ({ x }) => [x.softplus(), T.softplus(x)],
  logSigmoid: ({ x }) => [x.logSigmoid(), T.logSigmoid(x)],
  erf: ({ x }) => [x.erf(), T.erf(x)],
  erfc: ({ x }) => [x.erfc(), T.erfc(x)],
  lgamma: ({ positive: p }) => [p.lgamma(), T.lgamma(p)],
  digamma: ({ positive: p }) => [p.digamma(), T.digamma(p)],
  trigamma: ({ positive: p }) => [p.trigamma(), T.trigamma(p)],
  polygamma: ({ positive: p, order }) => [p.polygamma(order), T.polygamma(order, p)],
  floor: ({ x }) => [x.floor(), T.floor(x)],
  ceil: ({ x }) => [x.ceil(), T.ceil(x)],
  not: ({ x }) => [T.gt(x, 0).not(), T.not(T.gt(x, 0))],
  isNan: ({ x }) => [x.isNan(), T.isNan(x)],
  isFinite: ({ x }) => [x.div(x).isFinite(), T.isFinite(T.div(x, x))],
  stopGradient: ({ x }) => [x.stopGradient(), T.stopGradient(x)],
  cast: ({ x, dtype }) => [x.cast(dtype), T.cast(x, dtype)],
  Phi: ({ x }) => [x.Phi(), T.Phi(x)],
  logPhi: ({ x }) => [x.logPhi(), T.logPhi(x)],
  invPhi: ({ positive: p }) => [p.div(6).invPhi(), T.invPhi(T.div(p, 6))],
  log1mExp: ({ positive: p }) => [p.neg().log1mExp(), T.log1mExp(T.neg(p))],
  logInvLogit: ({ x }) => [x.logInvLogit(), T.logInvLogit(x)],
  log1mInvLogit: ({ x }) => [x.log1mInvLogit(), T.log1mInvLogit(x)],
  log1pExp: ({ x }) => [x.log1pExp(), T.log1pExp(x)],
  add: ({ x, other: o }) => [x.add(o), T.add(x, o)],
  sub: ({ x, other: o }) => [x.sub(o), T.sub(x, o)],
  mul: ({ x, other: o }) => [x.mul(o), T.mul(x, o)],
  div: ({ x, other: o }) => [x.div(o), T.div(x, o)],
  pow: ({ positive: p, other: o }) => [p.pow(o), T.pow(p, o)],
  maximum: ({ x, other: o }) => [x.maximum(o), T.maximum(x, o)],
  minimum: ({ x, other: o }) => [x.minimum(o), T.minimum(x, o)],
  atan2: ({ x, other: o }) => [x.atan2(o), T.atan2(x, o)],
  mod: ({ x, other: o }) => [x.mod(o), T.mod(x, o)],
  logDiffExp: ({ x, other: o }) => [x.logDiffExp(o), T.logDiffExp(x, o)],
  logSumExp: ({ x, other: o }) => [x.logSumExp(o), T.logSumExp(x, o)],
  lt: ({ x, other: o }) => [x.lt(o), T.lt(x, o)],
  le: ({ x, other: o }) => [x.le(o), T.le(x, o)],
  gt: ({ x, other: o }) => [x.gt(o), T.gt(x, o)],
  ge: ({ x, other: o }) => [x.ge(o), T.ge(x, o)],
  eq: ({ x, other: o }) => [x.eq(o), T.eq(x, o)],
  ne: ({ x, other: o }) => [x.ne(o), T.ne(x, o)],
  and: ({ x, other: o }) => [x.gt(0).and(T.lt(o, 1)), T.and(T.gt(x, 0), T.lt(o, 1))],
  or: ({ x, other: o }) => [x.gt(0).or(T.lt(o, 1)), T.or(T.gt(x, 0), T.lt(o, 1))],
  quotient: ({ ints: i, intOther: o }) => [i.quotient(o), T.quotient(i, o)],
  remainder: ({ ints: i, intOther: o }) => [i.remainder(o), T.remainder(i, o)],
  bitAnd: ({ ints: i, intOther: o }) => [i.bitAnd(o), T.bitAnd(i, o)],
  bitOr: ({ ints: i, intOther: o }) => [i.bitOr(o), T.bitOr(i, o)],
  bitXor: ({ ints: i, intOther: o }) => [i.bitXor(o), T.bitXor(i, o)],
  bitNot: ({ ints: i }) => [i.bitNot(), T.bitNot(i)],
  shiftLeft: ({ ints: i, intOther: o }) => [i.shiftLeft(o), T.shiftLeft(i, o)],
  shiftRight: ({ ints: i, intOther: o }) => [i.shiftRight(o), T.shiftRight(i, o)],
  select: ({ x, other: o, positive: p }) => [x.gt(0).select(o, p), T.select(T.gt(x, 0), o, p)],
  sum: ({ x, axis, keepdims }) => [x.sum(axis, keepdims), T.sum(x, axis, keepdims)],
  prod: ({ x, axis, keepdims }) => [x.prod(axis, keepdims), T.prod(x, axis, keepdims)],
  max: ({ x, axis, keepdims }) => [x.max(axis, keepdims), T.max(x, axis, keepdims)],
  min: ({ x }) => [x.min(), T.min(x)],
  mean: ({ x, axis, keepdims }) => [x.mean([axis], keepdims), T.mean(x, [axis], keepdims)],
  logsumexp: ({ x, axis, keepdims }) => [x.logsumexp(axis, keepdims), T.logsumexp(x, axis, keepdims)],
  logSoftmax: ({ x, axis }) => [x.logSoftmax(axis), T.logSoftmax(x, axis)],
  any: ({ x, axis, keepdims }) => [x.gt(0).any(axis, keepdims), T.any(T.gt(x, 0), axis, keepdims)],
  all: ({ x, axis, keepdims }) => [x.gt(0).all(axis, keepdims), T.all(T.gt(x, 0), axis, keepdims)],
  slidingSum: ({ x, axis, first }) => [x.slidingSum(Math.min(first, x.shape.at(axis)!), axis), T.slidingSum(x, Math.min(first, x.shape.at(axis)!), axis)],
  slidingMax: ({ x, first }) => [x.slidingMax(Math.min(first, x.shape.at(-1)!)), T.slidingMax(x, Math.min(first, x.shape.at(-1)!))],
  conv1d: ({ x, positive: p }) => [x.conv1d(T.reshape(p, [-1]).at(1).reshape([1])), T.conv1d(x, T.reshape(T.index(T.reshape(p, [-1]), 0), [1]))],
  reshape: ({ x }) => [x.reshape([-1]), T.reshape(x, [-1])],
  broadcastTo: ({ x }) => [x.broadcastTo([2, ...x.shape]), T.broadcastTo(x, [2, ...x.shape])],
  transpose: ({ x, perm }) => [x.transpose(perm), T.transpose(x, perm)],
  mT: ({ matrix: m }) => [m.mT(), T.mT(m)],
  pad: ({ x, keepdims }) => {
    const widths = x.shape.map((_, i) => [i, 1] as const);
    return keepdims ? [x.pad(widths), T.pad(x, widths)] : [x.pad(widths, -1), T.pad(x, widths, -1)];
  },
  sort: ({ x, axis, keepdims: descending }) => [x.sort(axis, descending), T.sort(x, axis, descending)],
  cumsum: ({ x, axis, keepdims: reverse }) => [x.cumsum(axis, reverse), T.cumsum(x, axis, reverse)],
  at: ({ x, first }) => [x.at(first), T.at(x, first)],
  row: ({ matrix: m, first }) => [m.row(Math.min(first, m.shape[m.rank - 2]!)), T.row(m, Math.min(first, m.shape[m.rank - 2]!))],
  col: ({ matrix: m, keepdims }) => [m.col(keepdims ? 1 : 2), T.col(m, keepdims ? 1 : 2)],
  range: ({ x, first, last }) => [x.range(Math.min(first, last), Math.max(first, last)), T.range(x, Math.min(first, last), Math.max(first, last))],
  matmul: ({ matrix: m }) => [m.matmul(T.mT(m)), T.matmul(m, T.mT(m))],
  dot: ({ x, other: o }) => [x.dot(o), T.dot(x, o)],
  cholesky: ({ spd }) => [spd.cholesky(), T.cholesky(spd)],
  triangularSolve: ({ lowerTri: l, rhs, keepdims }) => [
    l.triangularSolve(rhs, { transposeA: keepdims }),
    T.triangularSolve(l, rhs, { transposeA: keepdims }),
  ],
  diagonal: ({ spd }) => [spd.diagonal(), T.diagonal(spd)],
  logdetSpd: ({ spd }) => [spd.logdetSpd(), T.logdetSpd(spd)],
  solve: ({ lowerTri: l, rhs }) => [l.solve(rhs), T.solve(l, rhs)],
  inverse: ({ lowerTri: l }) => [l.inverse(), T.inverse(l)],
  logDeterminant: ({ lowerTri: l }) => [l.logDeterminant(), T.logDeterminant(l)],
  determinant: ({ spd }) => [spd.determinant(), T.determinant(spd)],
  eigenvaluesSym: ({ spd }) => [spd.eigenvaluesSym(), T.eigenvaluesSym(spd)],
  eigenvectorsSym: ({ spd }) => [spd.eigenvectorsSym(), T.eigenvectorsSym(spd)],
  diagMatrix: ({ x }) => [x.diagMatrix(), T.diagMatrix(x)],
  rep: ({ x }) => [x.rep([2, ...x.shape]), T.rep(x, [2, ...x.shape])],
  kronecker: ({ spd, lowerTri: l }) => [spd.kronecker(l), T.kronecker(spd, l)],
  quadForm: ({ lowerTri: l, rhs, keepdims }) => (keepdims ? [l.quadForm(rhs), T.quadForm(l, rhs)] : [l.quadForm(T.col(rhs, 1)), T.quadForm(l, T.col(rhs, 1))]),
  quadFormDiag: ({ lowerTri: l, rhs }) => [l.quadFormDiag(T.col(rhs, 2)), T.quadFormDiag(l, T.col(rhs, 2))],
  traceQuadForm: ({ lowerTri: l, rhs }) => [l.traceQuadForm(rhs), T.traceQuadForm(l, rhs)],
};

describe("fluent methods", () => {
  it("cover the method table and nothing else", () => {
    expect([...FLUENT_METHODS].sort()).toEqual(Object.keys(CASES).sort());
  });

  // Nodes are hash-consed, so the method and the function giving the same object means the same
  // graph: equal values and gradients at every input, on every backend.
  for (const name of FLUENT_METHODS) {
    it(`${name} is the functional ${name} (the same interned node)`, () => {
      fc.assert(fc.property(draw, (d) => {
        const [method, functional] = CASES[name](d);
        expect(method).toBe(functional);
      }), { numRuns: 40 });
    });
  }

  it("are not enumerable: a node's keys are its fields only", () => {
    const x = T.param("x", [2]);
    expect(Object.keys(x).sort()).toEqual(["attrs", "dtype", "hash", "id", "inputs", "op", "shape"]);
    for (const k in x) expect(FLUENT_METHODS as readonly string[]).not.toContain(k);
  });

  it("chain as model code reads: mu.add(tau.mul(z)) is add(mu, mul(tau, z))", () => {
    const mu = T.param("mu"), tau = T.param("tau"), z = T.param("z", [8]);
    expect(mu.add(tau.mul(z))).toBe(T.add(mu, T.mul(tau, z)));
    expect(z.square().sum().mul(-0.5)).toBe(T.mul(T.sum(T.square(z)), -0.5));
  });
});

const run = (n: Node) => Array.from(T.interpret([n], {})[0]!.data);

describe("log10", () => {
  it("is Math.log10 to within two ulps, and its gradient 1/(x ln 10)", () => {
    fc.assert(fc.property(fc.array(fc.double({ min: 1e-300, max: 1e300, noNaN: true }), { minLength: 1, maxLength: 8 }), (v) => {
      const got = run(T.log10(T.constant(v, [v.length])));
      got.forEach((g, i) => expect(Math.abs(g - Math.log10(v[i]!))).toBeLessThanOrEqual(4.5e-16 * Math.max(1, Math.abs(Math.log10(v[i]!)))));
    }));
    const x = T.param("x", [3]);
    const [g] = T.grad(T.sum(x.log10()), [x]);
    const at = [0.5, 2, 1000];
    const got = Array.from(T.interpret([g!], { x: at })[0]!.data);
    got.forEach((v, i) => expect(v).toBeCloseTo(1 / (at[i]! * Math.LN10), 14));
  });

  it("gives exact powers of ten their exponent", () => {
    expect(run(T.log10(T.constant([1, 10, 100, 1000, 1e-3], [5])))).toEqual([0, 1, 2, 3, -3]);
  });
});

describe("1-based indexing", () => {
  const matrixOf = fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 })).chain(([r, c]) =>
    fc.record({ r: fc.constant(r), c: fc.constant(c), v: values(r * c), i: fc.integer({ min: 1, max: r }), j: fc.integer({ min: 1, max: c }) }));

  it("at(i, j), row(i), col(j) read Stan's X[i, j], row(X, i), col(X, j)", () => {
    fc.assert(fc.property(matrixOf, ({ r, c, v, i, j }) => {
      const X = T.constant(v, [r, c]);
      expect(run(X.at(i, j))).toEqual([v[(i - 1) * c + (j - 1)]]);
      expect(run(X.at(i))).toEqual(v.slice((i - 1) * c, i * c));
      expect(run(X.row(i))).toEqual(v.slice((i - 1) * c, i * c));
      expect(run(X.col(j))).toEqual(Array.from({ length: r }, (_, k) => v[k * c + (j - 1)]));
      expect(X.at(i, j)).toBe(T.index(T.index(X, i - 1), j - 1));
    }));
  });

  it("at(tensor of positions) gathers, as Stan's x[idx]", () => {
    fc.assert(fc.property(values(5), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 7 }), (v, idx) => {
      const x = T.constant(v, [5]);
      const positions = T.constant(idx, [idx.length]);
      expect(run(x.at(positions))).toEqual(idx.map((k) => v[k - 1]));
      // Gathered along the leading axis, then a number for the next one: X[idx, 2].
      const X = T.mT(T.constant([...v, ...v.map((a) => a + 10)], [2, 5]));
      expect(run(X.at(positions, 2))).toEqual(idx.map((k) => v[k - 1]! + 10));
    }));
  });

  it("range(first, last) is Stan's x[first:last], both ends included", () => {
    fc.assert(fc.property(values(6), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }), (v, a, b) => {
      const [first, last] = a <= b ? [a, b] : [b, a];
      const x = T.constant(v, [6]);
      expect(run(x.range(first, last))).toEqual(v.slice(first - 1, last));
      expect(run(x.range(first))).toEqual(v.slice(first - 1));
    }));
    // x[(T+1):T] is empty, as in Stan.
    expect(T.constant([1, 2, 3], [3]).range(4, 3).shape).toEqual([0]);
    expect(T.constant([1, 2, 3], [3]).range(1, 0).shape).toEqual([0]);
  });

  it("says 1-based when given 0, and rejects positions outside 1..n", () => {
    const x = T.constant([1, 2, 3], [3]);
    expect(() => x.at(0)).toThrow(/1-based, as in Stan .*got 0/);
    expect(() => x.at(-1)).toThrow(/outside 1\.\.3/);
    expect(() => x.at(4)).toThrow(/outside 1\.\.3/);
    expect(() => x.at(1.5)).toThrow(/not an integer/);
    expect(() => x.at(1, 1)).toThrow(/2 indices for \[3\]/);
    expect(() => x.range(0, 2)).toThrow(/1-based/);
    expect(() => x.range(3, 1)).toThrow(/before first/);
    const X = T.constant([1, 2, 3, 4], [2, 2]);
    expect(() => X.row(0)).toThrow(/1-based/);
    expect(() => X.col(3)).toThrow(/outside 1\.\.2/);
    expect(() => x.row(1)).toThrow(/needs a matrix/);
    expect(() => x.at(T.gt(x, 1))).toThrow(/bool/);
  });
});
