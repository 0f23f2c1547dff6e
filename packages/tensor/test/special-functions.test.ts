/**
 * The CDF special functions (inv_phi, gamma_p, gamma_q, gamma_p_da, betainc, betainc_grad, owens_t and the compositions
 * Phi, logPhi, log1mExp, logDiffExp) on the CPU against SciPy's values over their domains, tails
 * included (fixtures/special-functions.json, written by fixtures/special-functions.py). The GPU
 * renderings are held to the CPU by the conformance suite.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";

interface Fixture {
  gamma: [number, number, number, number][];
  gamma_p_da: [number, number, number][];
  beta: [number, number, number, number][];
  betainc_grad: [number, number, number, number, number][];
  inv_phi: [number, number][];
  owens_t: [number, number, number][];
  log_phi: [number, number, number][];
  log_diff_exp: [number, number, number][];
}
const FIX = JSON.parse(readFileSync(new URL("./fixtures/special-functions.json", import.meta.url), "utf8")) as Fixture;

// Evaluates f on the columns of `rows` (as f64 data), one element per row.
function evaluate(rows: readonly (readonly number[])[], arity: number, f: (xs: T.Node[]) => T.Node): Float64Array {
  const cols = Array.from({ length: arity }, (_, k) => T.data(`c${k}`, [rows.length]));
  const bindings: T.Bindings = Object.fromEntries(cols.map((_, k) => [`c${k}`, rows.map((r) => r[k]!)]));
  return T.interpret([f(cols)], bindings)[0]!.data as Float64Array;
}

// Relative error where the value is normal-sized, absolute below `floor` (where only the tail's size matters).
function expectClose(got: ArrayLike<number>, want: readonly number[], rel: number, floor = 1e-300, label = ""): void {
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!, g = got[i]!;
    if (w === g) continue;
    expect(Math.abs(g - w), `${label} row ${i}: got ${g}, want ${w}`).toBeLessThanOrEqual(rel * Math.max(Math.abs(w), floor));
  }
}

describe("special functions against SciPy", () => {
  it("gamma_p and gamma_q (shapes 0.05–250, x out to 400)", () => {
    const p = evaluate(FIX.gamma, 2, ([a, x]) => T.gammaP(a!, x!));
    const q = evaluate(FIX.gamma, 2, ([a, x]) => T.gammaQ(a!, x!));
    expectClose(p, FIX.gamma.map((r) => r[2]), 1e-12, 1e-300, "P");
    expectClose(q, FIX.gamma.map((r) => r[3]), 1e-12, 1e-300, "Q");
  });

  it("gamma_p_da, ∂P/∂a (shapes 0.05–250, x out to 400, against mpmath)", () => {
    const v = evaluate(FIX.gamma_p_da, 2, ([a, x]) => TI.gammaPDa(a!, x!));
    expectClose(v, FIX.gamma_p_da.map((r) => r[2]), 1e-12, 1e-300, "dP/da");
  });

  it("betainc (shapes 0.1–150, both tails of x)", () => {
    const v = evaluate(FIX.beta, 3, ([a, b, x]) => T.betainc(a!, b!, x!));
    expectClose(v, FIX.beta.map((r) => r[3]), 1e-11, 1e-300, "I");
  });

  it("betainc_grad, ∂I/∂a and ∂I/∂b (shapes 0.1–150, both tails of x, against mpmath)", () => {
    const da = evaluate(FIX.betainc_grad, 3, ([a, b, x]) => TI.betaincGrad(a!, b!, x!, 0));
    const db = evaluate(FIX.betainc_grad, 3, ([a, b, x]) => TI.betaincGrad(a!, b!, x!, 1));
    expectClose(da, FIX.betainc_grad.map((r) => r[3]), 1e-10, 1e-300, "dI/da");
    expectClose(db, FIX.betainc_grad.map((r) => r[4]), 1e-10, 1e-300, "dI/db");
  });

  it("inv_phi (p from 1e-300 to 1 − 1e-15)", () => {
    const v = evaluate(FIX.inv_phi, 1, ([p]) => T.invPhi(p!));
    expectClose(v, FIX.inv_phi.map((r) => r[1]), 1e-13, 1e-300, "inv_phi");
  });

  it("owens_t (h to 14, a from 1e-4 to 1e4, both signs)", () => {
    const v = evaluate(FIX.owens_t, 2, ([h, a]) => T.owensT(h!, a!));
    expectClose(v, FIX.owens_t.map((r) => r[2]), 1e-12, 1e-300, "T");
  });

  it("Phi and logPhi (z from −60 to 30: the asymptotic tail, the erfc range, log1p above 0)", () => {
    const phi = evaluate(FIX.log_phi, 1, ([z]) => T.Phi(z!));
    const lphi = evaluate(FIX.log_phi, 1, ([z]) => T.logPhi(z!));
    expectClose(phi, FIX.log_phi.map((r) => r[1]), 1e-13, 1e-300, "Phi");
    expectClose(lphi, FIX.log_phi.map((r) => r[2]), 1e-13, 1e-300, "logPhi");
  });

  it("logPhi in f32 keeps its tail finite and accurate", () => {
    const z = T.data("z", [FIX.log_phi.length], "f32");
    const got = T.interpret([T.logPhi(z)], { z: FIX.log_phi.map((r) => r[0]) })[0]!.data;
    // Rounding z/√2 to f32 moves erfc by 2z² ulps of relative error in the upper tail: 1e-5 at z = 9.
    expectClose(got, FIX.log_phi.map((r) => Math.fround(r[2])), 1e-5, 1e-30, "logPhi f32");
  });

  it("log1mExp and logDiffExp (tiny and large gaps, far below 0)", () => {
    const v = evaluate(FIX.log_diff_exp, 2, ([a, b]) => T.logDiffExp(a!, b!));
    expectClose(v, FIX.log_diff_exp.map((r) => r[2]), 1e-13, 1e-300, "logDiffExp");
    const m = T.interpret([T.log1mExp(T.constant([-1e-20, -0.5, -0.7, -40], [4]))], {})[0]!.data;
    expectClose(m, [Math.log(1e-20), Math.log(-Math.expm1(-0.5)), Math.log1p(-Math.exp(-0.7)), -Math.exp(-40)], 1e-14);
    expect(T.interpret([T.logDiffExp(1.5, 1.5)], {})[0]!.data[0]).toBe(-Infinity);
  });

  it("logPhi has finite gradients deep in the tail and at the switches", () => {
    const z = T.param("z", [6]);
    const [g] = T.grad(T.sum(T.logPhi(z)), [z]);
    const zs = [-60, -20, -19.99, -3, 0, 8];
    const got = T.interpret([g!], { z: zs })[0]!.data;
    // d/dz log Φ(z) = φ(z)/Φ(z), the inverse Mills ratio: about −z in the lower tail.
    const want = [60.016620, 20.049753, 20.039778, 3.2830987, 0.79788456, 5.0522711e-15];
    got.forEach((v, i) => expect(Math.abs(v - want[i]!), `z = ${zs[i]}`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(want[i]!))));
  });
});
