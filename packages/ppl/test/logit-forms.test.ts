// The logit forms of the probability-taking families (zero-inflated and hurdle Poisson and negative
// binomial, Bernoulli, binomial, categorical): log densities and their derivatives in the logit against
// 800-digit values (fixtures/logit-forms.json, written by fixtures/logit-forms.py) at logits ±40 (±700
// for the last three), the zero-inflated Poisson case of sigmoid(36) and sigmoid(38), agreement with
// the probability forms where both are exact, gradients against central differences, and draws.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { checkGrad, constant, data, grad, interpret, mul, param, reshape, sigmoid, sum, type Bindings, type Node } from "@ppl/tensor";
import { compiledBackend } from "@ppl/tensor/internals";
import {
  bernoulli, bernoulliLogit, binomial, binomialLogit, categorical, categoricalLogit, hurdleNegativeBinomial, hurdleNegativeBinomialLogit, hurdlePoisson, hurdlePoissonLogit,
  compileModel, data as dataDecl, generatedEvaluator, model, ModelError, normal, philoxRng, zeroInflatedNegativeBinomial, zeroInflatedNegativeBinomialLogit, zeroInflatedPoisson, zeroInflatedPoissonLogit,
  type Distribution,
} from "../src/index.ts";

type Row = [alpha: number, n: number, logp: number, slope: number];
interface Fixture {
  lambda: number;
  mu: number;
  phi: number;
  binomialN: number;
  [family: string]: Row[] | number;
}
const FIX = JSON.parse(readFileSync(new URL("./fixtures/logit-forms.json", import.meta.url), "utf8")) as Fixture;
const rowsOf = (family: string) => FIX[family] as Row[];
const { lambda: LAMBDA, mu: MU, phi: PHI, binomialN: BINOMIAL_N } = FIX;
const cpu = compiledBackend();

/** Each logit form with its other parameters fixed as in the fixture, as a function of the logit. */
const FORMS: Record<string, (alpha: Node) => Distribution> = {
  zeroInflatedPoissonLogit: (a) => zeroInflatedPoissonLogit(a, LAMBDA),
  zeroInflatedNegativeBinomialLogit: (a) => zeroInflatedNegativeBinomialLogit(a, MU, PHI),
  hurdlePoissonLogit: (a) => hurdlePoissonLogit(a, LAMBDA),
  hurdleNegativeBinomialLogit: (a) => hurdleNegativeBinomialLogit(a, MU, PHI),
  bernoulliLogit: (a) => bernoulliLogit(a),
  binomialLogit: (a) => binomialLogit(BINOMIAL_N, a),
  // Logits (alpha, 0, −alpha) for each entry of alpha: alpha times (1, 0, −1) along a new last axis.
  categoricalLogit: (a) => categoricalLogit(mul(reshape(a, [...a.shape, 1]), constant([1, 0, -1], [3]))),
};

/** log p(n) and d/dα at the fixture's rows, by the interpreter and by the compiled CPU path. */
function evaluateRows(family: string, rows: readonly Row[]): { path: string; logp: ArrayLike<number>; slope: ArrayLike<number> }[] {
  const alpha = param("alpha", [rows.length]);
  const n = data("n", [rows.length]);
  const logp = FORMS[family]!(alpha).logpdf(n);
  const outputs = [logp, ...grad(sum(logp), [alpha])];
  const bindings: Bindings = { alpha: rows.map((r) => r[0]), n: rows.map((r) => r[1]) };
  return [
    { path: "interpreter", outs: interpret(outputs, bindings) },
    { path: "compiled", outs: cpu.compileSync(outputs).runSync(bindings) },
  ].map(({ path, outs }) => ({ path, logp: outs[0]!.data, slope: outs[1]!.data }));
}

// A few ulp of the log density: its terms round a handful of times each. Where it sums terms of
// size ~α (the binomial's k·log σ(α) at α = ±700), that rounding is relative to those terms.
const REL = 16 * Number.EPSILON;
// A derivative adds more roundings, and in the zero-inflated forms at n = 0 it is a difference of the
// two components' terms (θ's and 1 − θ's), which cancels by up to 1/(1 − p0) (1.2 at the fixture's NB2 p0).
const DERIVATIVE_REL = 64 * Number.EPSILON;

/** The largest error relative to tolerance over a family's rows (≤ 1 passes), with the worst row. */
function worstError(got: ArrayLike<number>, rows: readonly Row[], column: 2 | 3, scale: (r: Row) => number, rel = REL): { ratio: number; at: string } {
  let ratio = 0, at = "";
  rows.forEach((r, i) => {
    const want = r[column], g = got[i]!;
    if (g === want) return;
    const q = Math.abs(g - want) / (rel * Math.max(Math.abs(want), scale(r)));
    if (!(q <= ratio)) [ratio, at] = [q, `alpha=${r[0]} n=${r[1]}: got ${g}, want ${want}`];
  });
  return { ratio, at };
}

describe("logit forms against 100-digit values", () => {
  for (const family of Object.keys(FORMS)) {
    test(`${family}: log density and its derivative in the logit at logits ${family.includes("Inflated") || family.includes("hurdle") ? "−40 … 40" : "−700 … 700"}`, () => {
      const rows = rowsOf(family);
      for (const { path, logp, slope } of evaluateRows(family, rows)) {
        // The binomial's and categorical's terms k·log σ(α), α·e: absolute rounding at their own size, |α|·n.
        const termScale = (r: Row) => (family === "binomialLogit" || family === "categoricalLogit" ? Math.abs(r[0]) * Math.max(1, r[1]) : 1e-300);
        const value = worstError(logp, rows, 2, termScale);
        expect(value.ratio, `${path} log density, ${value.at}`).toBeLessThanOrEqual(1);
        // The categorical's derivative sums (δ − p)·(1, 0, −1): the likeliest level's 1 − p_top is formed as a
        // difference, exact to ε absolute (not relative: it is 4e−18 at alpha = −40).
        const derivative = worstError(slope, rows, 3, () => (family === "categoricalLogit" ? 1 : 1e-300), DERIVATIVE_REL);
        expect(derivative.ratio, `${path} derivative, ${derivative.at}`).toBeLessThanOrEqual(1);
      }
    });
  }

  test("the issue's case: zeroInflatedPoisson(sigmoid(x), λ) is off by 0.044 at x = 36 and −∞ at 38; the logit form is exact and finite there", () => {
    const rows = rowsOf("zeroInflatedPoissonLogit").filter((r) => (r[0] === 36 || r[0] === 38) && r[1] === 1);
    const x = constant(rows.map((r) => r[0]), [rows.length]);
    const naive = interpret([zeroInflatedPoisson(sigmoid(x), LAMBDA).logpdf(1)], {})[0]!.data;
    const exact = interpret([zeroInflatedPoissonLogit(x, LAMBDA).logpdf(1)], {})[0]!.data;
    expect(Math.abs(naive[0]! - rows[0]![2])).toBeGreaterThan(0.04);
    expect(naive[1]).toBe(-Infinity);
    rows.forEach((r, i) => {
      expect(Number.isFinite(exact[i]!)).toBe(true);
      expect(Math.abs(exact[i]! - r[2])).toBeLessThanOrEqual(REL * Math.abs(r[2]));
    });
  });

  test("bernoulliLogit's one-pass sum (logpdfSum) equals the sum of the 800-digit values at ±700", () => {
    const rows = rowsOf("bernoulliLogit");
    const alpha = constant(rows.map((r) => r[0]), [rows.length]);
    const got = interpret([bernoulliLogit(alpha).logpdfSum!(constant(rows.map((r) => r[1]), [rows.length]))], {})[0]!.data[0]!;
    const want = rows.reduce((s, r) => s + r[2], 0);
    expect(Math.abs(got - want)).toBeLessThanOrEqual(REL * rows.reduce((s, r) => s + Math.abs(r[2]), 0));
  });
});

/** The probability form and the logit form of each family, with the same other parameters. */
const PAIRS: [string, (theta: Node, p: Node[]) => Distribution, (alpha: Node, p: Node[]) => Distribution, fc.Arbitrary<number[]>][] = [
  ["zeroInflatedPoisson", (t, [l]) => zeroInflatedPoisson(t, l!), (a, [l]) => zeroInflatedPoissonLogit(a, l!), fc.tuple(num(0.1, 8))],
  ["zeroInflatedNegativeBinomial", (t, [m, f]) => zeroInflatedNegativeBinomial(t, m!, f!), (a, [m, f]) => zeroInflatedNegativeBinomialLogit(a, m!, f!), fc.tuple(num(0.1, 8), num(0.3, 6))],
  ["hurdlePoisson", (t, [l]) => hurdlePoisson(t, l!), (a, [l]) => hurdlePoissonLogit(a, l!), fc.tuple(num(0.1, 8))],
  ["hurdleNegativeBinomial", (t, [m, f]) => hurdleNegativeBinomial(t, m!, f!), (a, [m, f]) => hurdleNegativeBinomialLogit(a, m!, f!), fc.tuple(num(0.1, 8), num(0.3, 6))],
];

function num(min: number, max: number) {
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

describe("logit forms and probability forms", () => {
  const counts = fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 4, maxLength: 4 });
  const logits = fc.array(num(-10, 10), { minLength: 4, maxLength: 4 });
  for (const [name, probability, logit, params] of PAIRS) {
    test(`${name}: agree where both are exact (|alpha| < 10), to the rounding of theta = σ(alpha) (fast-check)`, () => {
      fc.assert(
        fc.property(logits, counts, params, (as, ns, ps) => {
          const alpha = constant(as, [4]), n = constant(ns, [4]);
          const others = ps.map((p) => constant(p));
          const [viaTheta, viaLogit] = interpret([probability(sigmoid(alpha), others).logpdf(n), logit(alpha, others).logpdf(n)], {}).map((v) => v.data);
          as.forEach((a, i) => {
            // theta = σ(α) rounds to ε/2 relative; log(1 − θ) then moves by ε·θ/(1 − θ) ≤ ε·e^{|α|}: 5e−12 at |α| = 10.
            const tol = Math.max(1e-12, 4 * Number.EPSILON * Math.exp(Math.abs(a))) * Math.max(1, Math.abs(viaLogit![i]!));
            expect(Math.abs(viaTheta![i]! - viaLogit![i]!), `alpha=${a} n=${ns[i]}`).toBeLessThanOrEqual(tol);
          });
        }),
        { seed: 4891, numRuns: 50 },
      );
    });

    test(`${name}Logit: the gradient in alpha and the other parameters against central differences (fast-check)`, () => {
      fc.assert(
        fc.property(logits, counts, params, (as, ns, ps) => {
          const alpha = param("alpha", [4]);
          const others = ps.map((_, j) => param(`p${j}`));
          const out = sum(logit(alpha, others).logpdf(constant(ns, [4])));
          const bindings: Bindings = { alpha: as, ...Object.fromEntries(ps.map((p, j) => [`p${j}`, [p]])) };
          const r = checkGrad(out, [alpha, ...others], bindings, { rtol: 1e-5 });
          expect(r.ok, r.message).toBe(true);
        }),
        { seed: 4892, numRuns: 25 },
      );
    });

    test(`${name}Logit: draws, mean and variance are the probability form's at theta = σ(alpha)`, () => {
      for (const a of [-30, -2, 0, 1.5, 30]) {
        const theta = a >= 0 ? 1 / (1 + Math.exp(-a)) : Math.exp(a) / (1 + Math.exp(a));
        const others = [3.5, 2].slice(0, name.includes("Negative") ? 2 : 1).map((p) => constant(p));
        const byLogit = logit(constant(a), others), byTheta = probability(constant(theta), others);
        expect(Array.from(byLogit.sample(philoxRng(48), [200]).data), `alpha=${a}`).toEqual(Array.from(byTheta.sample(philoxRng(48), [200]).data));
        const [m1, v1, m2, v2] = interpret([byLogit.mean!(), byLogit.variance!(), byTheta.mean!(), byTheta.variance!()], {}).map((v) => v.data[0]!);
        // The probability form's 1 − θ is exact only to ε absolute (θ rounds near 1): compare to that, not relatively.
        expect(Math.abs(m1! - m2!), `alpha=${a}`).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(m2!)));
        expect(Math.abs(v1! - v2!), `alpha=${a}`).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(v2!)));
      }
    });
  }

  test("bernoulliLogit, binomialLogit and categoricalLogit agree with bernoulli, binomial and categorical where both are exact (|alpha| < 10, fast-check)", () => {
    const k = fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 4, maxLength: 4 });
    fc.assert(
      fc.property(logits, k, (as, ks) => {
        const alpha = constant(as, [4]), y = constant(ks.map((v) => v % 2), [4]), n = constant(ks, [4]);
        // Logits (alpha, 0, −alpha) and levels 1..3: categorical's probabilities are their softmax.
        const l = mul(reshape(alpha, [4, 1]), constant([1, 0, -1], [3]));
        const probs = interpret([l], {})[0]!.data;
        const softmax = Array.from({ length: 4 }, (_, i) => {
          const e = [0, 1, 2].map((j) => Math.exp(probs[3 * i + j]!));
          return e.map((v) => v / (e[0]! + e[1]! + e[2]!));
        });
        const level = constant(ks.map((v) => 1 + (v % 3)), [4]);
        const pairs = interpret([
          bernoulli(sigmoid(alpha)).logpdf(y), bernoulliLogit(alpha).logpdf(y),
          binomial(10, sigmoid(alpha)).logpdf(n), binomialLogit(10, alpha).logpdf(n),
          categorical(constant(softmax.flat(), [4, 3])).logpdf(level), categoricalLogit(l).logpdf(level),
        ], {}).map((v) => v.data);
        for (let f = 0; f < 3; f++) {
          as.forEach((a, i) => {
            // As above: θ rounds to ε/2, so log(1 − θ) (times up to 10 trials) moves by about 10·ε·e^{|α|}.
            const want = pairs[2 * f + 1]![i]!;
            const tol = Math.max(1e-12, 40 * Number.EPSILON * Math.exp(Math.abs(a))) * Math.max(1, Math.abs(want));
            expect(Math.abs(pairs[2 * f]![i]! - want), `family ${f}, alpha=${a} k=${ks[i]}`).toBeLessThanOrEqual(tol);
          });
        }
      }),
      { seed: 4893, numRuns: 50 },
    );
  });

  test("in a model: the log density at alpha = 36 is finite and the prior's plus the family's; generated and predictive draws have its mean", () => {
    const zip = model({
      name: "zip_logit",
      data: { N: dataDecl.int({ lower: 1 }), y: dataDecl.intVector("N", { lower: 0 }) },
      build(m, d) {
        const alpha = m.param("alpha", normal(0, 20));
        m.observe(d.y, zeroInflatedPoissonLogit(alpha, LAMBDA));
        m.generated("y_new", zeroInflatedPoissonLogit(alpha, LAMBDA), { shape: [d.N] });
      },
    });
    const y = [0, 0, 2, 0, 1, 0, 4, 0];
    const c = compileModel(zip, { N: y.length, y });
    const lp = (d: Distribution, x: number[] | number) => interpret([sum(d.logpdf(typeof x === "number" ? x : constant(x, [x.length])))], {})[0]!.data[0]!;
    for (const a of [-0.5, 36, 38]) {
      const want = lp(normal(0, 20), a) + lp(zeroInflatedPoissonLogit(a, LAMBDA), y);
      expect(Number.isFinite(want)).toBe(true);
      expect(Math.abs(c.logDensityAt(c.unconstrain({ alpha: a })) - want)).toBeLessThanOrEqual(1e-12 * Math.abs(want));
    }
    const a = -0.5, theta = 1 / (1 + Math.exp(-a));
    const ev = generatedEvaluator(c, { seed: 48, predictive: true });
    const columns = ev.names.flatMap((nm, j) => (nm.startsWith("y_new[") || nm.startsWith("y_rep[") ? [j] : []));
    expect(columns.length).toBe(2 * y.length);
    const x = c.generatedAt(c.unconstrain({ alpha: a }));
    const draws: number[] = [];
    for (let i = 0; i < 500; i++) {
      const v = ev.at(0, i, x);
      for (const j of columns) draws.push(v[j]!);
    }
    // Mean (1 − θ)λ, variance (1 − θ)λ(1 + θλ); 8000 draws, within 4 Monte Carlo standard errors.
    const mean = (1 - theta) * LAMBDA, variance = mean * (1 + theta * LAMBDA);
    const m = draws.reduce((s, v) => s + v, 0) / draws.length;
    expect(draws.every((v) => Number.isInteger(v) && v >= 0)).toBe(true);
    expect(Math.abs(m - mean) / Math.sqrt(variance / draws.length), `mean ${m} vs ${mean}`).toBeLessThan(4);
  });

  test("arguments are checked like the probability forms': a logit must be finite, the rates positive", () => {
    expect(() => zeroInflatedPoissonLogit(Infinity, 1)).toThrow(ModelError);
    expect(() => zeroInflatedPoissonLogit(Infinity, 1)).toThrow(/zeroInflatedPoissonLogit: alpha must be finite, got Infinity/);
    expect(() => hurdlePoissonLogit(0, 0)).toThrow(/hurdlePoissonLogit: lambda must be positive/);
    expect(() => zeroInflatedNegativeBinomialLogit(0, -1, 1)).toThrow(/zeroInflatedNegativeBinomialLogit: mu must be positive/);
    expect(() => hurdleNegativeBinomialLogit("0" as unknown as number, 1, 1)).toThrow(/hurdleNegativeBinomialLogit: 'alpha' must be a number or a tensor, got the string "0"/);
    expect(() => zeroInflatedPoissonLogit(constant([0, 1], [2]), constant([1, 2, 3], [3]))).toThrow(/zeroInflatedPoissonLogit: parameter shapes do not broadcast/);
  });
});
