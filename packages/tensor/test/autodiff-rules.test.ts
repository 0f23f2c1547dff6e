/**
 * Every vjp rule against central finite differences: for each op, random well-conditioned inputs
 * x, random fixed weights w, objective sum(w ⊙ op(x)), gradient graph evaluated by the reference
 * interpreter vs finite differences in f64 (relative error ≤ 1e-6; see checkGrad for the absolute part).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";
import type { Node } from "../src/index.ts";
import type { Op } from "../src/internals.ts";

type Values = fc.Arbitrary<number[]>;
interface Input {
  shape: number[];
  values: (size: number) => Values;
}
interface Case {
  name: string;
  /** The ops this case exercises; each must appear in the built graph. */
  ops: readonly Op[];
  inputs: readonly Input[];
  build: (x: Node[]) => Node;
  /** Inputs where finite differences are accurate (away from kinks and ties). */
  valid?: (vals: number[][]) => boolean;
}

const RUNS = 40;
const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
// Uniform on [lo, hi] (fc.double would crowd values near 0 and the bounds).
const real = (lo: number, hi: number) => fc.noBias(fc.integer({ min: 0, max: 2 ** 30 })).map((k) => lo + ((hi - lo) * k) / 2 ** 30);
const uniform = (lo: number, hi: number) => (n: number): Values => fc.array(real(lo, hi), { minLength: n, maxLength: n });
// Magnitudes in [lo, hi] with either sign: keeps away from zero (kinks, poles).
const awayFromZero = (lo: number, hi: number) => (n: number): Values =>
  fc.array(fc.tuple(real(lo, hi), fc.boolean()).map(([m, s]) => (s ? m : -m)), { minLength: n, maxLength: n });
// Distinct values at least 0.5 apart in random order: no ties for max/min.
const distinct = (n: number): Values =>
  fc.tuple(fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }), uniform(0, 0.5)(n))
    .map(([perm, jitter]) => perm.map((p, i) => p - n / 2 + jitter[i]!));
// Triangular-friendly n×n matrices: small entries, diagonal entries of magnitude in [1.5, 2.5].
const triangular = (n: number) => (): Values =>
  fc.tuple(uniform(-0.5, 0.5)(n * n), awayFromZero(1.5, 2.5)(n)).map(([v, d]) => v.map((x, i) => (i % (n + 1) === 0 ? d[i / (n + 1)]! : x)));
// Symmetric positive-definite matrices M·Mᵀ + n·I (batched when size > n²).
const spd = (n: number) => (total: number): Values =>
  uniform(-1, 1)(total).map((m) => {
    const out = new Array<number>(total).fill(0);
    for (let b = 0; b < total; b += n * n)
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          let s = i === j ? n : 0;
          for (let k = 0; k < n; k++) s += m[b + i * n + k]! * m[b + j * n + k]!;
          out[b + i * n + j] = s;
        }
    return out;
  });

const inp = (shape: number[], values: (n: number) => Values = uniform(-2, 2)): Input => ({ shape, values });
const farFromInt = (v: number) => Math.abs(v - Math.round(v)) > 0.01;
const all = (vals: number[][], p: (v: number) => boolean) => vals.every((a) => a.every(p));

// ---- unary ops --------------------------------------------------------------------------------
const unaryDomains: Record<TI.UnaryOp, ((n: number) => Values) | null> = {
  neg: uniform(-3, 3), abs: awayFromZero(0.05, 3), sign: awayFromZero(0.05, 3), exp: uniform(-3, 3),
  expm1: uniform(-3, 3), log: uniform(0.2, 5), log1p: uniform(-0.5, 4), sqrt: uniform(0.2, 5),
  rsqrt: uniform(0.2, 5), square: uniform(-3, 3), reciprocal: awayFromZero(0.3, 4), sin: uniform(-4, 4),
  cos: uniform(-4, 4), tanh: uniform(-3, 3), sigmoid: uniform(-5, 5), softplus: uniform(-5, 5),
  log_sigmoid: uniform(-5, 5), erf: uniform(-2, 2), erfc: uniform(-2, 2), lgamma: uniform(0.3, 8),
  inv_phi: uniform(0.02, 0.98),
  floor: uniform(-3, 3), ceil: uniform(-3, 3),
  not: null, // bool in, bool out: covered by the select case
  is_nan: null, // bool out: no gradient
  is_finite: null,
  stop_gradient: null, // finite differences see the identity: covered in autodiff-api.test.ts
};
const unaryCases: Case[] = TI.UNARY_OPS.filter((op) => unaryDomains[op] !== null).map((op) => ({
  name: op,
  ops: [op],
  inputs: [inp([2, 3], unaryDomains[op]!)],
  // A second term keeps the objective's gradient nonzero for the piecewise-constant ops.
  build: ([x]) => (["sign", "floor", "ceil"].includes(op) ? T.mul(TI.unary(op, x!), T.sin(x!)) : TI.unary(op, x!)),
  valid: (v) => !["floor", "ceil"].includes(op) || all(v, farFromInt),
}));

const polygammaCases: Case[] = [0, 1, 2].map((order) => ({
  name: `polygamma(${order})`,
  ops: ["polygamma"],
  inputs: [inp([5], uniform(0.5, 6))],
  build: ([x]) => T.polygamma(order, x!),
}));

// ---- binary ops, with broadcasting ---------------------------------------------------------------
const shapePairs: [number[], number[]][] = [[[2, 3], [2, 3]], [[3, 1], [1, 4]], [[2, 3, 4], [4]], [[], [2, 3]]];
// The integer ops have no derivative: they are covered by the cast cases below.
const binaryDomains: Record<Exclude<TI.BinaryOp, TI.IntegerBinaryOp>, [(n: number) => Values, (n: number) => Values]> = {
  add: [uniform(-3, 3), uniform(-3, 3)],
  sub: [uniform(-3, 3), uniform(-3, 3)],
  mul: [uniform(-3, 3), uniform(-3, 3)],
  div: [uniform(-3, 3), awayFromZero(0.3, 3)],
  pow: [uniform(0.3, 3), uniform(-2, 2)],
  max: [uniform(-3, 3), uniform(-3, 3)],
  min: [uniform(-3, 3), uniform(-3, 3)],
  atan2: [uniform(-3, 3), uniform(-3, 3)],
  mod: [uniform(-5, 5), awayFromZero(0.5, 3)],
  gamma_p: [uniform(0.5, 5), uniform(0.2, 8)],
  gamma_q: [uniform(0.5, 5), uniform(0.2, 8)],
  // No second derivative in a: its cases below hold a constant.
  gamma_p_da: [uniform(0.5, 5), uniform(0.2, 8)],
  owens_t: [uniform(-3, 3), uniform(-3, 3)],
};
const CONSTANT_FIRST_OPERAND = new Set<TI.BinaryOp>(["gamma_p_da"]);
const broadcastPairs = (a: readonly number[], sa: readonly number[], b: readonly number[], sb: readonly number[]) => {
  const out = TI.broadcastShapes("test", sa, sb);
  const ia = TI.broadcastShapes("test", sa, out), pairs: [number, number][] = [];
  void ia;
  const idx = (s: readonly number[], flat: number) => {
    // flat index of the broadcast source element
    const strides = TI.stridesOf(s), ostr = TI.stridesOf(out);
    let src = 0;
    for (let k = 0; k < out.length; k++) {
      const o = Math.floor(flat / ostr[k]!) % out[k]!;
      const ax = k - (out.length - s.length);
      if (ax >= 0 && s[ax] !== 1) src += o * strides[ax]!;
    }
    return src;
  };
  for (let f = 0; f < size(out); f++) pairs.push([a[idx(sa, f)]!, b[idx(sb, f)]!]);
  return pairs;
};
const binaryValid: Partial<Record<TI.BinaryOp, (a: number, b: number) => boolean>> = {
  max: (a, b) => Math.abs(a - b) > 0.01,
  min: (a, b) => Math.abs(a - b) > 0.01,
  // Away from the origin and from the branch cut along the negative b axis.
  atan2: (a, b) => a * a + b * b > 0.1 && !(Math.abs(a) < 0.05 && b < 0),
  mod: (a, b) => farFromInt(a / b),
};
const differentiableBinary = TI.BINARY_OPS.filter((op): op is Exclude<TI.BinaryOp, TI.IntegerBinaryOp> => !TI.isIntegerBinary(op));
const binaryCases: Case[] = differentiableBinary.filter((op) => !CONSTANT_FIRST_OPERAND.has(op)).flatMap((op) =>
  shapePairs.map(([sa, sb]): Case => ({
    name: `${op} [${sa}] [${sb}]`,
    ops: [op],
    inputs: [inp(sa, binaryDomains[op][0]), inp(sb, binaryDomains[op][1])],
    build: ([a, b]) => TI.binary(op, a!, b!),
    valid: ([a, b]) => {
      const ok = binaryValid[op];
      return !ok || broadcastPairs(a!, sa, b!, sb).every(([x, y]) => ok(x, y));
    },
  })),
);

// Functions differentiated in x only, with their shape parameters held as constants (broadcast against x).
const shapes = (v: number[], shape: number[]) => T.constant(v, shape);
const incompleteCases: Case[] = [
  ...(["gamma_p", "gamma_q", "gamma_p_da"] as const).flatMap((op): Case[] => [
    { name: `${op} in x, a = [0.6, 1, 2.5, 7]`, ops: [op], inputs: [inp([4], uniform(0.2, 9))], build: ([x]) => TI.binary(op, shapes([0.6, 1, 2.5, 7], [4]), x!) },
    { name: `${op} in x, a [3,1], x [1,4]`, ops: [op], inputs: [inp([1, 4], uniform(0.2, 6))], build: ([x]) => TI.binary(op, shapes([0.8, 2, 4.5], [3, 1]), x!) },
  ]),
  {
    name: "betainc in x, a and b broadcast",
    ops: ["betainc"],
    inputs: [inp([2, 3], uniform(0.05, 0.95))],
    build: ([x]) => T.betainc(shapes([0.7, 2.5], [2, 1]), shapes([1.2, 3, 0.6], [3]), x!),
  },
  {
    name: "betainc in a, b and x, broadcast",
    ops: ["betainc"],
    inputs: [inp([2, 1], uniform(0.4, 6)), inp([3], uniform(0.4, 6)), inp([2, 3], uniform(0.05, 0.95))],
    build: ([a, b, x]) => T.betainc(a!, b!, x!),
  },
  ...([0, 1] as const).map((wrt): Case => ({
    name: `betainc_grad (wrt ${wrt === 0 ? "a" : "b"}) in x`,
    ops: ["betainc_grad"],
    inputs: [inp([2, 3], uniform(0.05, 0.95))],
    build: ([x]) => TI.betaincGrad(shapes([0.7, 2.5], [2, 1]), shapes([1.2, 3, 0.6], [3]), x!, wrt),
  })),
];

// ---- comparisons, logical ops, select, not -----------------------------------------------------
const apart = ([a, b]: number[][]) => a!.every((x, i) => Math.abs(x - b![i]!) > 0.01 && Math.abs(x) > 0.01 && Math.abs(b![i]!) > 0.01);
const compareCases: Case[] = TI.COMPARE_OPS.map((op) => ({
  name: `select on ${op}`,
  ops: [op, "select"],
  inputs: [inp([6]), inp([6])],
  build: ([a, b]) => {
    const cond = op === "and" || op === "or" ? TI.compare(op, T.gt(a!, 0), T.gt(b!, 0)) : TI.compare(op, a!, b!);
    return T.select(cond, T.mul(a!, T.sin(b!)), T.exp(T.mul(a!, 0.5)));
  },
  valid: apart,
}));
const selectCases: Case[] = [
  {
    name: "select with broadcast cond and branches",
    ops: ["select", "not"],
    inputs: [inp([3, 1]), inp([1, 4]), inp([4])],
    build: ([c, a, b]) => T.select(T.not(T.gt(c!, 0)), T.mul(a!, 2), T.square(b!)),
    valid: ([c]) => c!.every((v) => Math.abs(v) > 0.01),
  },
  {
    // The usual guard: a branch is taken only where it is finite (log and sqrt of a negative are NaN),
    // and it reads a guarded input so that its derivative is finite too.
    name: "select guarded by is_finite and is_nan",
    ops: ["select", "is_finite", "is_nan"],
    inputs: [inp([4], awayFromZero(0.1, 2)), inp([4], awayFromZero(0.1, 2))],
    build: ([a, b]) => {
      const okA = T.isFinite(T.log(a!)), nanB = T.isNan(T.sqrt(b!));
      return T.add(T.select(okA, T.log(T.select(okA, a!, 1)), 0), T.select(nanB, 0, T.sqrt(T.select(nanB, 1, b!))));
    },
  },
];

// ---- reductions ---------------------------------------------------------------------------------
const reduceAxes: [number[], number[] | undefined][] = [[[3, 4], [0]], [[3, 4], [1]], [[3, 4], undefined], [[2, 3, 4], [0, 2]]];
const reduceDomains: Record<TI.ReduceOp, (n: number) => Values> = {
  reduce_sum: uniform(-3, 3),
  reduce_prod: awayFromZero(0.5, 1.5),
  reduce_max: distinct,
  reduce_min: distinct,
  reduce_logsumexp: uniform(-3, 3),
};
const reduceCases: Case[] = TI.REDUCE_OPS.flatMap((op) =>
  reduceAxes.map(([shape, axes]): Case => ({
    name: `${op} [${shape}] axes ${axes ? `[${axes}]` : "all"}`,
    ops: [op],
    inputs: [inp(shape, reduceDomains[op])],
    build: ([x]) => TI.reduce(op, x!, axes),
  })),
);
reduceCases.push({
  name: "mean [3,4] axis 1 keepdims",
  ops: ["reduce_sum", "reshape"],
  inputs: [inp([3, 4])],
  build: ([x]) => T.mul(T.mean(x!, 1, true), x!),
});

// ---- movement -----------------------------------------------------------------------------------
const idx = (v: number[], shape: number[]) => T.constant(v, shape, "i32");
const movementCases: Case[] = [
  { name: "reshape", ops: ["reshape"], inputs: [inp([2, 6])], build: ([x]) => T.reshape(x!, [3, 4]) },
  { name: "broadcast_to [3,1] → [2,3,4]", ops: ["broadcast_to"], inputs: [inp([3, 1])], build: ([x]) => T.broadcastTo(x!, [2, 3, 4]) },
  { name: "broadcast_to [] → [3]", ops: ["broadcast_to"], inputs: [inp([])], build: ([x]) => T.broadcastTo(x!, [3]) },
  { name: "transpose [2,0,1]", ops: ["transpose"], inputs: [inp([2, 3, 4])], build: ([x]) => T.transpose(x!, [2, 0, 1]) },
  { name: "transpose [1,0]", ops: ["transpose"], inputs: [inp([3, 4])], build: ([x]) => T.transpose(x!) },
  { name: "slice, unit steps", ops: ["slice"], inputs: [inp([5, 4])], build: ([x]) => T.slice(x!, [{ start: 1, stop: 4 }, { start: 2 }]) },
  { name: "slice, steps 3 and 2", ops: ["slice"], inputs: [inp([8, 5])], build: ([x]) => T.slice(x!, [{ start: 1, stop: 7, step: 3 }, { step: 2 }]) },
  { name: "slice, step with a single entry", ops: ["slice"], inputs: [inp([7])], build: ([x]) => T.slice(x!, [{ start: 5, step: 4 }]) },
  { name: "diagonal (strided slice)", ops: ["slice", "reshape"], inputs: [inp([2, 3, 3])], build: ([x]) => T.diagonal(x!) },
  { name: "index", ops: ["slice", "reshape"], inputs: [inp([4, 3])], build: ([x]) => T.index(x!, 2, 0) },
  { name: "concat axis 1", ops: ["concat"], inputs: [inp([2, 1]), inp([2, 3]), inp([2, 2])], build: (xs) => T.concat(xs, 1) },
  { name: "stack", ops: ["concat", "reshape"], inputs: [inp([3]), inp([3])], build: (xs) => T.stack(xs, 1) },
  { name: "pad", ops: ["pad"], inputs: [inp([2, 3])], build: ([x]) => T.pad(x!, [[1, 2], [0, 3]], 0.5) },
  {
    name: "gather axis 1, repeated 2-D indices",
    ops: ["gather"],
    inputs: [inp([3, 4])],
    build: ([x]) => T.gather(x!, idx([0, 2, 2, 3, 0, 0], [2, 3]), 1),
  },
  { name: "gather axis 0", ops: ["gather"], inputs: [inp([4, 2])], build: ([x]) => T.gather(x!, idx([3, 1, 3], [3]), 0) },
  {
    name: "scatter_add axis 0, repeated indices",
    ops: ["scatter_add"],
    inputs: [inp([4, 2])],
    build: ([u]) => T.scatterAdd(T.square(u!), idx([2, 0, 2, 1], [4]), 0, 3),
  },
  { name: "cumsum axis 1", ops: ["cumsum"], inputs: [inp([3, 4])], build: ([x]) => T.cumsum(x!, 1) },
  { name: "cumsum axis 0 reverse", ops: ["cumsum"], inputs: [inp([4, 2])], build: ([x]) => T.cumsum(x!, 0, true) },
  // sort's gradient is the permutation's gather (argsort itself has none); distinct values: no ties to swap.
  { name: "sort along axis 1", ops: ["argsort", "gather"], inputs: [inp([3, 5], distinct)], build: ([x]) => T.sort(x!, 1) },
  { name: "sort descending along axis 0", ops: ["argsort", "gather"], inputs: [inp([5, 2], distinct)], build: ([x]) => T.sort(x!, 0, true) },
];

// ---- linear algebra -----------------------------------------------------------------------------
const matmulCases: Case[] = (
  [[[3, 4], [4, 2]], [[2, 3, 4], [4, 5]], [[2, 1, 3, 4], [3, 4, 2]], [[4], [4, 3]], [[3, 4], [4]], [[4], [4]]] as [number[], number[]][]
).map(([sa, sb]) => ({
  name: `matmul [${sa}] @ [${sb}]`,
  ops: ["matmul"],
  inputs: [inp(sa), inp(sb)],
  build: ([a, b]) => T.matmul(a!, b!),
}));
const solveCases: Case[] = [];
for (const lower of [true, false])
  for (const transposeA of [false, true])
    for (const [sl, sb] of [[[3, 3], [3, 2]], [[3, 3], [3]], [[2, 3, 3], [3, 2]], [[3, 3], [2, 3, 1]]] as [number[], number[]][])
      solveCases.push({
        name: `triangular_solve lower=${lower} transposeA=${transposeA} [${sl}] [${sb}]`,
        ops: ["triangular_solve"],
        inputs: [inp(sl, (n) => fc.array(triangular(3)(), { minLength: n / 9, maxLength: n / 9 }).map((m) => m.flat())), inp(sb)],
        build: ([l, b]) => T.triangularSolve(l!, b!, { lower, transposeA }),
      });
const choleskyCases: Case[] = [
  { name: "cholesky of an SPD input", ops: ["cholesky"], inputs: [inp([3, 3], spd(3))], build: ([a]) => T.cholesky(a!) },
  { name: "cholesky, batched", ops: ["cholesky"], inputs: [inp([2, 4, 4], spd(4))], build: ([a]) => T.cholesky(a!) },
  {
    name: "cholesky of M·Mᵀ + 3I (symmetric use)",
    ops: ["cholesky", "matmul"],
    inputs: [inp([3, 3], uniform(-1, 1))],
    build: ([m]) => T.cholesky(T.add(T.matmul(m!, T.mT(m!)), T.constant([3, 0, 0, 0, 3, 0, 0, 0, 3], [3, 3]))),
  },
  {
    name: "logdet of an SPD matrix",
    ops: ["cholesky", "slice", "log"],
    inputs: [inp([3, 3], uniform(-1, 1))],
    build: ([m]) => T.logdetSpd(T.add(T.matmul(m!, T.mT(m!)), T.constant([3, 0, 0, 0, 3, 0, 0, 0, 3], [3, 3]))),
  },
];

// General square matrices, well conditioned whatever the draw: 2·J (J the reversal permutation, so
// that pivoting swaps rows) plus entries in [−0.4, 0.4], batched when size > n².
const pivotedMatrix = (n: number) => (total: number): Values =>
  uniform(-0.4, 0.4)(total).map((m) => m.map((x, f) => x + (Math.floor((f % (n * n)) / n) + (f % n) === n - 1 ? 2 : 0)));
// Symmetric-part eigenvalues near 0, 4, 8, …: diag(4k) plus entries in [−0.5, 0.5] (gaps ≥ 4 − n > 0 by Weyl, n ≤ 3).
const separatedSymmetric = (n: number) => (total: number): Values =>
  uniform(-0.5, 0.5)(total).map((m) => m.map((x, f) => x + ((f % (n * n)) % (n + 1) === 0 ? 4 * Math.floor((f % (n * n)) / (n + 1)) : 0)));
// A fixed orthogonal Q (a Householder reflection) so that eigenvectors are dense rather than near the axes.
const householder = (n: number) => {
  const v = Array.from({ length: n }, (_, i) => 0.6 + 0.3 * i);
  const vv = v.reduce((s, x) => s + x * x, 0);
  return T.constant(Array.from({ length: n * n }, (_, f) => (Math.floor(f / n) === f % n ? 1 : 0) - (2 * v[Math.floor(f / n)]! * v[f % n]!) / vv), [n, n]);
};
const generalCases: Case[] = [
  ...([[[3, 3], [3, 2]], [[3, 3], [3]], [[2, 3, 3], [3, 2]], [[3, 3], [2, 3, 1]]] as [number[], number[]][]).map(([sa, sb]): Case => ({
    name: `solve [${sa}] [${sb}]`,
    ops: ["solve"],
    inputs: [inp(sa, pivotedMatrix(3)), inp(sb)],
    build: ([a, b]) => T.solve(a!, b!),
  })),
  { name: "inverse", ops: ["solve"], inputs: [inp([3, 3], pivotedMatrix(3))], build: ([a]) => T.inverse(a!) },
  { name: "logDeterminant, batched", ops: ["slogdet"], inputs: [inp([2, 3, 3], pivotedMatrix(3))], build: ([a]) => T.logDeterminant(a!) },
  { name: "determinant (sign · exp log|det|)", ops: ["slogdet"], inputs: [inp([3, 3], pivotedMatrix(3))], build: ([a]) => T.determinant(a!) },
  {
    name: "eighSymmetric: eigenvalues and eigenvectors",
    ops: ["eigh"],
    inputs: [inp([3, 3], separatedSymmetric(3))],
    build: ([a]) => {
      const { values, vectors } = T.eighSymmetric(a!);
      return T.concat([T.reshape(values, [1, 3]), vectors], 0);
    },
  },
  {
    name: "eighSymmetric of Q·A·Qᵀ, batched (dense eigenvectors)",
    ops: ["eigh"],
    inputs: [inp([2, 3, 3], separatedSymmetric(3))],
    build: ([a]) => {
      const Q = householder(3);
      const { values, vectors } = T.eighSymmetric(T.matmul(T.matmul(Q, a!), T.mT(Q)));
      return T.concat([T.reshape(values, [2, 1, 3]), vectors], 1);
    },
  },
  {
    name: "eighSymmetric: eigenvalues of a symmetric use (M + Mᵀ)",
    ops: ["eigh"],
    inputs: [inp([4, 4], separatedSymmetric(4))],
    build: ([m]) => T.eighSymmetric(T.add(m!, T.mT(m!))).values,
  },
];

// A float graph through an integer cast: the cast to i32 carries no cotangent, the f64 path does.
const castCases: Case[] = [
  {
    name: "cast through i32 carries no gradient",
    ops: ["cast", "floor"],
    inputs: [inp([4], uniform(0.5, 4))],
    build: ([x]) => T.mul(T.cast(T.cast(T.floor(x!), "i32"), "f64"), T.square(x!)),
    valid: (v) => all(v, farFromInt),
  },
  {
    // Integer arithmetic on a parameter's floor is a constant factor: the gradient flows through x² only.
    name: "integer ops carry no gradient",
    ops: ["cast", "quotient", "remainder", "bit_and", "bit_or", "bit_xor", "shift_left", "shift_right"],
    inputs: [inp([4], uniform(-4, 4))],
    build: ([x]) => {
      const k = T.cast(T.floor(x!), "i32");
      const bits = T.bitXor(T.bitOr(T.bitAnd(k, 6), T.shiftLeft(k, 2)), T.shiftRight(k, 1));
      const f = T.add(T.add(T.quotient(bits, 3), T.remainder(k, 3)), 0);
      return T.mul(T.cast(f, "f64"), T.square(x!));
    },
    valid: (v) => all(v, farFromInt),
  },
];

// ---- fused log densities: the hand-written partials of lpdf_sum against differences of its reference kernel ----
const bits = T.constant([0, 1, 1, 0, 1, 0], [2, 3], "i32");
const counts = T.constant([0, 3, 1, 7, 2, 0], [2, 3], "i32");
const lpdfCases: Case[] = [
  {
    name: "lpdf_sum normal in y, mu and a scalar sigma",
    ops: ["lpdf_sum"],
    inputs: [inp([2, 3], uniform(-3, 3)), inp([2, 3]), inp([], uniform(0.3, 3))],
    build: ([y, mu, sigma]) => T.lpdfSum("normal", y!, mu!, sigma!),
  },
  {
    name: "lpdf_sum normal with mu and sigma broadcast along different axes",
    ops: ["lpdf_sum"],
    inputs: [inp([2, 3], uniform(-3, 3)), inp([2, 1]), inp([3], uniform(0.3, 3))],
    build: ([y, mu, sigma]) => T.lpdfSum("normal", y!, mu!, sigma!),
  },
  {
    name: "lpdf_sum bernoulli_logit in alpha, elementwise and broadcast",
    ops: ["lpdf_sum"],
    inputs: [inp([2, 3], uniform(-6, 6)), inp([3], uniform(-6, 6))],
    build: ([a, b]) => T.add(T.lpdfSum("bernoulli_logit", bits, a!), T.lpdfSum("bernoulli_logit", bits, b!)),
  },
  {
    name: "lpdf_sum poisson_log in alpha, elementwise and broadcast",
    ops: ["lpdf_sum"],
    inputs: [inp([2, 3]), inp([])],
    build: ([a, b]) => T.add(T.lpdfSum("poisson_log", counts, a!), T.lpdfSum("poisson_log", counts, b!)),
  },
];

export const CASES: Case[] = [
  ...unaryCases, ...polygammaCases, ...binaryCases, ...incompleteCases, ...compareCases, ...selectCases, ...reduceCases,
  ...movementCases, ...matmulCases, ...solveCases, ...choleskyCases, ...generalCases, ...castCases, ...lpdfCases,
];

/** Run one case: graph built once, values drawn by fast-check. */
function checkCase(c: Case, runs = RUNS): void {
  const params = c.inputs.map((x, i) => T.param(`x${i}`, x.shape));
  const out = c.build(params);
  const order = TI.toposort([out]);
  for (const op of c.ops) expect(order.some((n) => n.op === op), `case '${c.name}' must contain op ${op}`).toBe(true);
  const w = T.data("w", out.shape);
  const objective = T.sum(T.mul(w, out));
  const magnitude = T.sum(T.abs(T.mul(w, out)));
  fc.assert(
    fc.property(fc.tuple(...c.inputs.map((x) => x.values(size(x.shape)))), uniform(-1, 1)(out.size), (vals, wv) => {
      fc.pre(!c.valid || c.valid(vals));
      const bindings: T.Bindings = Object.fromEntries([...vals.map((v, i) => [`x${i}`, v]), ["w", wv]]);
      const scale = 1 + T.interpret([magnitude], bindings)[0]!.data[0]!;
      const r = T.checkGrad(objective, params, bindings, { scale });
      if (!r.ok) throw new Error(`${c.name}: ${r.message}`);
    }),
    { numRuns: runs },
  );
}

describe("vjp rules vs finite differences", () => {
  for (const c of CASES) it(c.name, () => checkCase(c));
});

describe("rule coverage", () => {
  it("every op of the IR has a rule", () => {
    const missing = TI.ALL_OPS.filter((op) => !TI.hasVjpRule(op));
    expect(missing).toEqual([]);
  });

  it("every op with inputs is exercised by a finite-difference case", () => {
    // Leaves have nothing to differentiate; scan, tuple_get and arg are covered in autodiff-scan.test.ts,
    // stop_gradient (which finite differences cannot see) in autodiff-api.test.ts.
    const elsewhere = new Set<Op>(["param", "data", "const", "arg", "scan", "tuple_get", "stop_gradient"]);
    const covered = new Set(CASES.flatMap((c) => c.ops));
    expect(TI.ALL_OPS.filter((op) => !covered.has(op) && !elsewhere.has(op))).toEqual([]);
  });

  it("refuses second derivatives in the shapes of the incomplete gamma and beta functions", () => {
    const a = T.param("a", [3]), x = T.data("x", [3]);
    expect(() => T.grad(T.sum(TI.gammaPDa(a, x)), [a])).toThrow(/shape a .*must be data or a constant/);
    const [g] = T.grad(T.sum(T.gammaP(a, x)), [a]);
    expect(() => T.grad(T.sum(g!), [a])).toThrow(/second derivatives in a/);
    const [gb] = T.grad(T.sum(T.betainc(x, a, 0.5)), [a]);
    expect(() => T.grad(T.sum(gb!), [a])).toThrow(/second derivatives in the shapes/);
    // The first derivative in a exists, and with the shape as data so does the gradient in x.
    const y = T.param("y", [3]);
    expect(() => T.grad(T.sum(T.gammaP(x, y)), [y])).not.toThrow();
  });

  it("a broken rule is caught", () => {
    const saved = TI.VJP_RULES.sin;
    TI.VJP_RULES.sin = TI.VJP_RULES.cos;
    try {
      expect(() => checkCase(unaryCases.find((c) => c.name === "sin")!, 5)).toThrow();
    } finally {
      TI.VJP_RULES.sin = saved;
    }
  });
});
