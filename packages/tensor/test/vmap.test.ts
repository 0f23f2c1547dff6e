import { describe, expect, it } from "vitest";
import * as T from "../src/api/elementwise.ts";
import { constant, data, param } from "../src/api/leaves.ts";
import { cholesky, eighSymmetric, inverse, matmul, signLogDeterminant, solve, triangularSolve } from "../src/api/linalg.ts";
import { reduce, sum } from "../src/api/reduce.ts";
import { lpdfSum } from "../src/api/lpdf-sum.ts";
import { scan } from "../src/api/scan.ts";
import { argsort, sort } from "../src/api/sort.ts";
import { broadcastTo, concat, cumsum, gather, mT, pad, reshape, scatterAdd, slice, transpose } from "../src/api/shape-ops.ts";
import { grad } from "../src/autodiff/vjp.ts";
import { BATCH_RULES } from "../src/batch/batch-rules.ts";
import { vmap } from "../src/batch/vmap.ts";
import { interpret, type Bindings } from "../src/cpu/reference/interpret.ts";
import type { TensorValue } from "../src/cpu/value.ts";
import { toposort } from "../src/graph/toposort.ts";
import type { Node } from "../src/ir/node.ts";
import { ALL_OPS, BINARY_OPS, COMPARE_OPS, REDUCE_OPS, UNARY_OPS, isIntegerBinary, type Op } from "../src/ir/ops.ts";
import { lowerLpdfSums } from "../src/rewrite/lower-lpdf-sum.ts";
import { optimize } from "../src/rewrite/optimize.ts";

const C = 3;

// Per-chain parameter values: deterministic, different per chain and element; i32 params are valid indices.
function chainValue(p: Node, c: number): number[] {
  const seed = [...p.attrs.name!].reduce((h, ch) => h * 31 + ch.charCodeAt(0), 7);
  return Array.from({ length: p.size }, (_, i) => {
    if (p.dtype === "i32") return (c + 2 * i + seed) % 3;
    return Math.sin(1.3 * seed + 2.1 * c + 0.7 * i) * 1.5;
  });
}

const SHARED: Bindings = {
  X: { dtype: "f64", shape: [4, 3], data: Float64Array.from({ length: 12 }, (_, i) => Math.cos(i) * 2) },
  y: [0.5, -1, 2],
  D3: { dtype: "f64", shape: [2, 4, 3], data: Float64Array.from({ length: 24 }, (_, i) => Math.sin(i * 0.37)) },
  Ld: { dtype: "f64", shape: [3, 3], data: Float64Array.of(2, 0, 0, 0.5, 1.5, 0, -0.3, 0.2, 1.1) },
  idx: [2, 0, 1, 2],
};

// Exact equality (NaN matches NaN).
function close(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  return a === b;
}

/** vmap(g) on stacked params must equal g evaluated chain by chain, stacked. */
function checkVmap(outputs: readonly Node[], size = C): Node[] {
  const params = toposort(outputs).filter((n) => n.op === "param");
  const names = [...new Set(params.map((p) => p.attrs.name!))];
  const perChain: TensorValue[][] = [];
  for (let c = 0; c < size; c++) {
    const env: Record<string, unknown> = { ...SHARED };
    for (const p of params) env[p.attrs.name!] = { dtype: p.dtype, shape: p.shape, data: Float64Array.from(chainValue(p, c)) };
    perChain.push(interpret(outputs, env as Bindings));
  }
  const stacked: Record<string, unknown> = { ...SHARED };
  for (const p of params) {
    const vals: number[] = [];
    for (let c = 0; c < size; c++) vals.push(...chainValue(p, c));
    stacked[p.attrs.name!] = { dtype: p.dtype, shape: [size, ...p.shape], data: Float64Array.from(vals) };
  }
  const batched = vmap(outputs, { params: names, size });
  const got = interpret(batched, stacked as Bindings);
  outputs.forEach((o, k) => {
    expect(batched[k]!.shape).toEqual([size, ...o.shape]);
    expect(batched[k]!.dtype).toBe(o.dtype);
    const want = perChain.flatMap((r) => [...r[k]!.data]);
    got[k]!.data.forEach((g, i) => {
      if (!close(g, want[i]!)) throw new Error(`output ${k} (${o}) element ${i}: vmap gives ${g}, per chain ${want[i]}`);
    });
  });
  return batched;
}

const a = param("a", [3]);
const b = param("b", [2, 3]);
const s = param("s");
const ip = param("ip", [4], "i32");
const ip2 = param("ip2", [2, 2], "i32");
const X = data("X", [4, 3]);
const y = data("y", [3]);
const D3 = data("D3", [2, 4, 3]);
const Ld = data("Ld", [3, 3]);
const idx = data("idx", [4], "i32");

const POSITIVE_ONLY = new Set(["log", "sqrt", "rsqrt", "lgamma", "log1p", "reciprocal"]);
const spd = T.add(matmul(mT(b), b), T.mul(constant([1, 0, 0, 0, 1, 0, 0, 0, 1], [3, 3]), 2));
const Lc = cholesky(spd);

// Graphs for every op, with the batched operand in each position and mixed with shared data.
const CASES: Record<string, () => Node[]> = {
  ...Object.fromEntries(
    UNARY_OPS.map((op) => [
      op,
      () => {
        if (op === "not") return [T.not(T.gt(a, 0)), T.not(T.gt(X, s))];
        const arg = POSITIVE_ONLY.has(op) ? T.exp(a) : op === "inv_phi" ? T.sigmoid(a) : a;
        return [T.unary(op, arg), T.mul(T.unary(op, arg), X)];
      },
    ]),
  ),
  ...Object.fromEntries(
    BINARY_OPS.map((op) => [
      op,
      () => {
        const f = (u: Node, v: Node) =>
          op === "pow" ? T.pow(T.exp(u), v)
          : op === "mod" ? T.mod(u, T.add(T.abs(v), 0.5))
          : op === "gamma_p" || op === "gamma_q" || op === "gamma_p_da" ? T.binary(op, T.exp(u), T.abs(v))
          : isIntegerBinary(op) ? T.binary(op, T.cast(T.floor(T.mul(u, 50)), "i32"), T.cast(T.floor(T.mul(v, 5)), "i32"))
          : T.binary(op, u, v);
        return [f(a, b), f(b, y), f(X, a), f(s, X), f(s, a)];
      },
    ]),
  ),
  ...Object.fromEntries(
    COMPARE_OPS.map((op) => [
      op,
      () => (op === "and" || op === "or" ? [T.compare(op, T.gt(a, 0), T.gt(X, 0)), T.compare(op, T.gt(b, 0), T.lt(a, 0))] : [T.compare(op, a, X), T.compare(op, b, a), T.compare(op, y, s)]),
    ]),
  ),
  ...Object.fromEntries(REDUCE_OPS.map((op) => [op, () => [reduce(op, b, 1), reduce(op, b, 0), reduce(op, b), reduce(op, T.mul(X, a), [0], true), reduce(op, a)]])),
  select: () => [T.select(T.gt(a, 0), b, y), T.select(T.gt(y, 0), a, X), T.select(T.gt(X, 0), X, s)],
  cast: () => [T.cast(T.gt(a, 0), "f64"), T.cast(T.mul(a, 10), "i32"), T.cast(b, "f32")],
  polygamma: () => [T.digamma(T.exp(a)), T.trigamma(T.exp(b)), T.polygamma(2, T.exp(s))],
  betainc_grad: () => [T.betaincGrad(T.exp(a), T.exp(b), T.sigmoid(y), 0), T.betaincGrad(T.exp(s), T.exp(y), T.sigmoid(a), 1)],
  betainc: () => [T.betainc(T.exp(a), T.exp(b), T.sigmoid(y)), T.betainc(T.exp(s), T.exp(y), T.sigmoid(a)), T.betainc(2, T.exp(X), T.sigmoid(s))],
  matmul: () => [
    matmul(X, a), // shared matrix @ batched vector
    matmul(X, mT(b)), // shared matrix @ batched matrix
    matmul(b, mT(X)), // batched matrix @ shared matrix
    matmul(a, mT(X)), // batched vector @ shared matrix
    matmul(b, a), // both batched
    matmul(D3, a), // shared batch of matrices @ batched vector
    matmul(broadcastTo(b, [2, 2, 3]), mT(X)),
    matmul(mT(D3), reshape(T.mul(matmul(D3, a), s), [2, 4, 1])), // batched with batch dims on the right
  ],
  reshape: () => [reshape(b, [3, 2]), reshape(a, [3, 1]), reshape(s, [1, 1])],
  broadcast_to: () => [broadcastTo(a, [4, 3]), broadcastTo(s, [2, 2]), broadcastTo(reshape(a, [3, 1]), [2, 3, 5])],
  transpose: () => [transpose(b), transpose(broadcastTo(b, [4, 2, 3]), [2, 0, 1])],
  slice: () => [slice(b, [{ start: 1 }, { start: 0, step: 2 }]), slice(a, [{ start: 2, stop: 3 }])],
  concat: () => [concat([a, y]), concat([b, reshape(y, [1, 3]), b], 0), concat([X, broadcastTo(a, [2, 3])], 0), concat([b, b], 1)],
  pad: () => [pad(b, [[1, 0], [0, 2]], -1), pad(a, [[2, 2]])],
  gather: () => [
    gather(a, idx), // batched x, shared indices
    gather(b, idx, 1),
    gather(y, ip), // shared x, batched indices
    gather(X, ip2, 1),
    gather(T.mul(X, a), ip, 0), // both batched
    gather(b, ip2, 1),
    gather(broadcastTo(b, [2, 2, 3]), ip, 2),
  ],
  scatter_add: () => [
    scatterAdd(T.mul(X, a), idx, 0, 3), // batched updates, shared indices
    scatterAdd(broadcastTo(reshape(b, [2, 1, 3]), [2, 4, 3]), idx, 1, 5),
    scatterAdd(X, ip, 0, 3), // shared updates, batched indices
    scatterAdd(T.mul(X, a), ip, 0, 3), // both batched
    scatterAdd(broadcastTo(b, [2, 2, 2, 3]), ip2, 1, 3),
  ],
  cumsum: () => [cumsum(b, 1), cumsum(b, 0, true), cumsum(T.mul(X, a), 0)],
  argsort: () => [argsort(b, 1), argsort(b, 0, true), sort(T.mul(X, a), 0), sort(T.add(X, s), 1)],
  cholesky: () => [Lc, cholesky(broadcastTo(spd, [2, 3, 3]))],
  triangular_solve: () => [
    triangularSolve(Lc, mT(X)), // batched matrix, shared right-hand side
    triangularSolve(Ld, mT(b)), // shared matrix, batched right-hand side
    triangularSolve(Lc, a, { transposeA: true }), // both batched, vector
    triangularSolve(mT(Lc), T.mul(y, s), { lower: false }),
    triangularSolve(Ld, broadcastTo(reshape(a, [3, 1]), [2, 3, 2])),
  ],
  solve: () => [
    solve(spd, mT(X)), // batched matrix, shared right-hand side
    solve(Ld, mT(b)), // shared matrix, batched right-hand side
    solve(T.add(spd, Ld), a), // both batched, vector
    solve(broadcastTo(Ld, [2, 3, 3]), T.mul(y, s)),
    inverse(T.add(spd, Ld)),
  ],
  slogdet: () => {
    const { sign, logAbs } = signLogDeterminant(T.sub(spd, T.mul(Ld, 3)));
    return [sign, logAbs, signLogDeterminant(broadcastTo(T.add(Ld, s), [2, 3, 3])).logAbs];
  },
  // Batched parameters in each position, against shared data y and X, and a shared scale beside a batched one.
  lpdf_sum: () => [
    lpdfSum("normal", X, T.mul(a, s), T.exp(s)),
    lpdfSum("normal", y, X, T.exp(a)),
    lpdfSum("normal", a, y, T.exp(T.mul(y, 0.1))),
    lpdfSum("bernoulli_logit", T.cast(T.gt(X, 0), "i32"), T.add(a, s)),
    lpdfSum("poisson_log", T.cast(T.floor(T.abs(D3)), "i32"), reshape(T.mul(b, 0.3), [2, 1, 3])),
  ],
  eigh: () => {
    const { values, vectors } = eighSymmetric(spd);
    return [values, vectors, eighSymmetric(broadcastTo(T.add(Ld, T.mul(mT(Ld), s)), [2, 3, 3])).values];
  },
  scan: () => {
    // A GARCH-like recurrence: shared data xs, batched consts, a carry that becomes batched through the body.
    const garch = scan(([v], [r]) => ({ carry: [T.add(T.mul(v!, T.sigmoid(s)), T.mul(T.square(r!), 0.1))], ys: [T.log(v!), T.square(r!)] }), [constant(1)], [y]);
    // Batched xs and init, a carry that stays shared, and a reverse scan.
    const mixed = scan(
      ([u, w], [row, e]) => ({ carry: [T.add(u!, T.mul(row!, e!)), T.add(w!, sum(row!))], ys: [T.mul(u!, 2), w!] }),
      [a, constant(0)],
      [b, slice(y, [{ stop: 2 }])],
      [],
      { reverse: true },
    );
    // A nested scan whose inner body reads the outer carry.
    const nested = scan(
      ([u], [row]) => {
        const inner = scan(([v], [e]) => ({ carry: [T.add(T.mul(v!, 0.5), T.mul(e!, u!))] }), [s], [row!]);
        return { carry: [T.add(u!, inner.carry[0]!)], ys: [inner.carry[0]!] };
      },
      [s],
      [X],
    );
    return [...garch.carry, ...garch.ys, ...mixed.carry, ...mixed.ys, ...nested.carry, ...nested.ys];
  },
};

function opsOf(outputs: readonly Node[], into = new Set<Op>()): Set<Op> {
  for (const n of toposort(outputs)) {
    into.add(n.op);
    if (n.op === "scan") opsOf(n.attrs.body!.outputs, into);
  }
  return into;
}

describe("vmap batching rules", () => {
  it("has a rule for every op of ir/ops.ts", () => {
    for (const op of ALL_OPS) expect(typeof BATCH_RULES[op], op).toBe("function");
    expect(Object.keys(BATCH_RULES).sort()).toEqual([...ALL_OPS].sort());
  });

  it("the per-op cases exercise every op", () => {
    const seen = new Set<Op>();
    for (const build of Object.values(CASES)) opsOf(vmap(build(), { params: [...new Set(toposort(build()).filter((n) => n.op === "param").map((n) => n.attrs.name!))], size: C }), opsOf(build(), seen));
    expect(ALL_OPS.filter((op) => !seen.has(op))).toEqual([]);
  });

  for (const [op, build] of Object.entries(CASES)) {
    // lpdf_sum batches as its expansion, which sums in another order than the fused kernel: checked below.
    if (op === "lpdf_sum") continue;
    it(`${op}: vmap equals stacking each chain`, () => {
      checkVmap(build());
    });
  }

  it("lpdf_sum: vmap equals stacking each chain's expansion, and each chain's fused value to rounding", () => {
    const outputs = CASES.lpdf_sum!();
    checkVmap(lowerLpdfSums(outputs));
    const batched = vmap(outputs, { params: ["a", "b", "s"], size: C });
    expect(toposort(batched).some((n) => n.op === "lpdf_sum")).toBe(false);
    const stacked: Record<string, unknown> = { ...SHARED };
    const params = toposort(outputs).filter((n) => n.op === "param");
    for (const p of params) stacked[p.attrs.name!] = { dtype: p.dtype, shape: [C, ...p.shape], data: Float64Array.from(Array.from({ length: C }, (_, c) => chainValue(p, c)).flat()) };
    const got = interpret(batched, stacked as Bindings);
    for (let c = 0; c < C; c++) {
      const env: Record<string, unknown> = { ...SHARED };
      for (const p of params) env[p.attrs.name!] = { dtype: p.dtype, shape: p.shape, data: Float64Array.from(chainValue(p, c)) };
      interpret(outputs, env as Bindings).forEach((want, k) => expect(Math.abs(got[k]!.data[c]! - want.data[0]!)).toBeLessThanOrEqual(1e-13 * Math.abs(want.data[0]!)));
    }
  });

  it("broadcasts outputs that read no batched param, and accepts a Map of leaves", () => {
    const outs = vmap([sum(y), T.mul(a, 2)], new Map([[a, 4]]));
    expect(outs[0]!.shape).toEqual([4]);
    expect(outs[1]!.shape).toEqual([4, 3]);
    const [v] = interpret(outs, { ...SHARED, a: { dtype: "f64", shape: [4, 3], data: new Float64Array(12) } });
    expect([...v!.data]).toEqual([1.5, 1.5, 1.5, 1.5]);
  });

  it("ignores a named param the graph does not read, and rejects a bad batch size", () => {
    const [out] = vmap([T.exp(a)], { params: ["a", "alpha"], size: 2 });
    expect(out!.shape).toEqual([2, 3]);
    expect(() => vmap([T.exp(a)], { params: ["a"], size: 0 })).toThrow(/batch size/);
    expect(() => vmap([T.exp(a)], new Map([[a, 2], [b, 3]]))).toThrow(/same batch size/);
  });

  it("keeps a scan carry shared when nothing batched reaches it", () => {
    const res = scan(([u, w], [r]) => ({ carry: [T.add(u!, T.mul(r!, s)), T.add(w!, r!)] }), [constant(0), constant(0)], [y]);
    const [, wOut] = vmap(res.carry, { params: ["s"], size: C });
    const sc = toposort([wOut!]).find((n) => n.op === "scan")!;
    expect(sc.attrs.outputs!.map((o) => o.shape)).toEqual([[C], []]);
    checkVmap(res.carry);
  });
});

describe("vmap of a logistic regression", () => {
  const N = 50, Dd = 4;
  const Xd = data("Xlr", [N, Dd]);
  const yd = data("ylr", [N]);
  const beta = param("beta", [Dd]);
  const alpha = param("alpha");
  const eta = T.add(matmul(Xd, beta), alpha);
  const lp = T.add(sum(T.sub(T.mul(yd, eta), T.softplus(eta))), T.mul(-0.5, T.add(sum(T.square(beta)), T.square(alpha))));
  const [gBeta, gAlpha] = grad(lp, [beta, alpha]);
  const outputs = [lp, gBeta!, gAlpha!];

  it("reads the data matrix once, never broadcast per chain", () => {
    const Cn = 8;
    for (const g of [vmap(outputs, { params: ["beta", "alpha"], size: Cn }), optimize(vmap(outputs, { params: ["beta", "alpha"], size: Cn }))]) {
      const nodes = toposort(g);
      const xs = nodes.filter((n) => n.op === "data" && n.attrs.name === "Xlr");
      expect(xs).toEqual([Xd]);
      expect(nodes.some((n) => n.size >= Cn * N * Dd)).toBe(false);
      // Every use of X is a plain 2-D product or a transpose of it, not a broadcast.
      for (const n of nodes) if (n.inputs.includes(Xd)) expect(["matmul", "transpose"]).toContain(n.op);
      for (const n of nodes) if (n.op === "matmul") expect(n.rank).toBe(2);
    }
  });

  it("equals stacking each chain", () => {
    const env: Record<string, unknown> = {
      Xlr: { dtype: "f64", shape: [N, Dd], data: Float64Array.from({ length: N * Dd }, (_, i) => Math.sin(i * 0.77)) },
      ylr: Array.from({ length: N }, (_, i) => (Math.cos(i * 1.3) > 0 ? 1 : 0)),
    };
    Object.assign(SHARED, env);
    checkVmap(outputs, 5);
  });
});
