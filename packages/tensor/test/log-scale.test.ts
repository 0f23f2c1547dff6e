/**
 * The log-scale functions (logInvLogit, log1mInvLogit, log1pExp, logSumExp, logMix, logSoftmax, and
 * logDiffExp's gradient) on both CPU paths against 400-digit values (fixtures/log-scale.json, written by
 * fixtures/log-scale.py), extreme logits included; and their gradients against central differences
 * over random inputs (fast-check). The GPU renderings are held to the CPU in
 * packages/ppl-vulkan/test/logit-forms-vulkan.test.ts.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import { compiledBackend } from "../src/cpu/compiled/backend.ts";

interface Fixture {
  log_inv_logit: [number, number, number][];
  log1m_inv_logit: [number, number, number][];
  log1p_exp: [number, number, number][];
  log_sum_exp: [number, number, number, number, number][];
  log_mix: [number, number, number, number, number, number, number][];
  log_softmax: [number[], number[], number[]][];
  log_diff_exp: [number, number, number, number, number][];
}
const FIX = JSON.parse(readFileSync(new URL("./fixtures/log-scale.json", import.meta.url), "utf8")) as Fixture;
const cpu = compiledBackend();

// A few ulp of the result: these forms round a handful of times, each to half an ulp.
const REL = 8 * Number.EPSILON;
// Subnormal results (e^{−745}) have no relative precision; below this only the absolute error counts.
const FLOOR = 1e-300;

/** f over the columns of `rows` as f64 data, with its gradient in each column; by the interpreter and the compiled CPU path. */
function evaluate(rows: readonly (readonly number[])[], arity: number, f: (xs: T.Node[]) => T.Node): Float64Array[][] {
  const cols = Array.from({ length: arity }, (_, k) => T.param(`c${k}`, [rows.length]));
  const bindings: T.Bindings = Object.fromEntries(cols.map((_, k) => [`c${k}`, rows.map((r) => r[k]!)]));
  const value = f(cols);
  // Each row's value depends on its own entries only, so the gradient of the sum is every row's derivative.
  const outputs = [value, ...T.grad(T.sum(value), cols)];
  const interpreted = T.interpret(outputs, bindings).map((v) => v.data as Float64Array);
  const compiled = cpu.compileSync(outputs).runSync(bindings).map((v) => v.data as Float64Array);
  return [interpreted, compiled];
}

function expectClose(got: ArrayLike<number>, want: readonly number[], label: string, rel = REL): void {
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!, g = got[i]!;
    if (w === g) continue;
    expect(Math.abs(g - w), `${label} row ${i}: got ${g}, want ${w}`).toBeLessThanOrEqual(rel * Math.max(Math.abs(w), FLOOR));
  }
}

/** Checks the value column `valueAt` and the derivative columns after it, on both CPU paths. */
function expectRows(rows: readonly (readonly number[])[], arity: number, f: (xs: T.Node[]) => T.Node, label: string, gradRel = REL): void {
  for (const [path, outs] of evaluate(rows, arity, f).entries()) {
    const name = `${label} (${path === 0 ? "interpreter" : "compiled"})`;
    expectClose(outs[0]!, rows.map((r) => r[arity]!), `${name} value`);
    for (let k = 0; k < arity; k++) expectClose(outs[k + 1]!, rows.map((r) => r[arity + 1 + k]!), `${name} d/d#${k}`, gradRel);
  }
}

describe("log-scale functions against 400-digit values", () => {
  it("logInvLogit, log1mInvLogit and log1pExp at logits from −745 to 745 (±36 and ±38 included)", () => {
    expectRows(FIX.log_inv_logit, 1, ([x]) => T.logInvLogit(x!), "logInvLogit");
    expectRows(FIX.log1m_inv_logit, 1, ([x]) => T.log1mInvLogit(x!), "log1mInvLogit");
    expectRows(FIX.log1p_exp, 1, ([x]) => T.log1pExp(x!), "log1pExp");
  });

  it("the naive log(1 − σ(x)) is what the issue measured: off by 0.044 at x = 36 and −∞ at 38", () => {
    const naive = T.interpret([T.log1p(T.neg(T.sigmoid(T.constant([36, 38], [2]))))], {})[0]!.data;
    const exact = FIX.log1m_inv_logit.filter((r) => r[0] === 36 || r[0] === 38).map((r) => r[1]);
    expect(Math.abs(naive[0]! - exact[0]!)).toBeGreaterThan(0.04);
    expect(naive[1]).toBe(-Infinity);
  });

  it("logSumExp: a term far below the other keeps its relative precision; ties, −∞ and ±700", () => {
    expectRows(FIX.log_sum_exp, 2, ([a, b]) => T.logSumExp(a!, b!), "logSumExp");
    const both = T.interpret([T.logSumExp(-Infinity, -Infinity), T.logSumExp(-Infinity, 2)], {});
    expect([both[0]!.data[0], both[1]!.data[0]]).toEqual([-Infinity, 2]);
  });

  it("logMix at weights near 0 and 1 and components 1500 apart", () => {
    // log θ + a rounds at a's scale: at a = −700 that is 700ε ≈ 1.6e−13 in the components' weights.
    expectRows(FIX.log_mix, 3, ([t, a, b]) => T.logMix(t!, a!, b!), "logMix", 1e-12);
  });

  it("logSoftmax: the largest entry's log probability is exact (−e^{−80}, not 0); the gradient is δ − p at ties too", () => {
    for (const [v, logp, p] of FIX.log_softmax) {
      const x = T.param("x", [v.length]);
      const out = T.logSoftmax(x);
      // The gradient of Σ w·log p is w − p·Σw: with w = e₁ it reads off the first row of the Jacobian δ − p.
      const w = T.constant(v.map((_, i) => (i === 0 ? 1 : 0)), [v.length]);
      const outputs = [out, ...T.grad(T.sum(T.mul(out, w)), [x])];
      for (const got of [T.interpret(outputs, { x: v }), cpu.compileSync(outputs).runSync({ x: v })]) {
        expectClose(got[0]!.data, logp, `logSoftmax(${v})`, 1e-15);
        expectClose(got[1]!.data, p.map((q, i) => (i === 0 ? 1 : 0) - q), `logSoftmax(${v}) gradient`, 1e-15);
      }
    }
  });

  it("logDiffExp: its gradient holds at a − b = 1e−12 (2 · 10^{12}) and far apart", () => {
    expectRows(FIX.log_diff_exp, 2, ([a, b]) => T.logDiffExp(a!, b!), "logDiffExp", 1e-3);
    // Near a = b the input's own rounding dominates: a − b = 1e−12 is 1e−12 ± 1.1e−16, a relative 1e−4.
    expectRows(FIX.log_diff_exp.filter((r) => r[0] - r[1] > 1e-6), 2, ([a, b]) => T.logDiffExp(a!, b!), "logDiffExp far", 1e-14);
  });
});

describe("log-scale gradients against central differences", () => {
  const real = fc.double({ min: -30, max: 30, noNaN: true });
  const unit = fc.double({ min: 0.01, max: 0.99, noNaN: true });
  const check = (out: T.Node, wrt: T.Node[], bindings: T.Bindings) => {
    const r = T.checkGrad(out, wrt, bindings, { rtol: 1e-5 });
    expect(r.ok, r.message).toBe(true);
  };
  it("logInvLogit, log1mInvLogit, log1pExp, logSumExp, logMix, logSoftmax", () => {
    const x = T.param("x", [3]), t = T.param("t", [3]), y = T.param("y", [3]);
    const f = T.sum(T.add(T.add(T.logInvLogit(x), T.log1mInvLogit(y)), T.add(T.log1pExp(x), T.logSumExp(x, y))));
    const mixed = T.sum(T.logMix(t, x, y));
    const soft = T.sum(T.mul(T.logSoftmax(x), y));
    fc.assert(
      fc.property(fc.array(real, { minLength: 3, maxLength: 3 }), fc.array(real, { minLength: 3, maxLength: 3 }), fc.array(unit, { minLength: 3, maxLength: 3 }), (xs, ys, ts) => {
        check(f, [x, y], { x: xs, y: ys });
        check(mixed, [t, x, y], { t: ts, x: xs, y: ys });
        check(soft, [x, y], { x: xs, y: ys });
      }),
      { seed: 4809, numRuns: 60 },
    );
  });
});
