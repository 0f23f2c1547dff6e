// The logit forms of the zero-inflated and hurdle families and the log-scale functions they are built
// from (logInvLogit, log1mInvLogit, logSumExp, logMix, logSoftmax) on the Vulkan backend (lavapipe in
// CI): log densities and gradients at logits −40 … 40 compiled to compute shaders, against the
// reference interpreter. In f64 they keep the CPU's relative precision (values of 1e−18 included); in
// f32 they stay finite and within f32 rounding where the probability forms' log(1 − σ(x)) is −∞.
import { describe, expect, it } from "vitest";
import {
  constant, grad, interpret, logInvLogit, log1mInvLogit, logMix, logSoftmax, logSumExp, mul, param, reshape, sub, sum, type Node,
} from "@ppl/tensor";
import { castFloats, optimize } from "@ppl/tensor/internals";
import { usableDevices, vulkanBackend } from "@ppl/vulkan";
import * as P from "@ppl/ppl";

const device = usableDevices()[0];
const LOGITS = [-40, -20, -1, 0, 1, 20, 36, 38, 40];
const COUNTS = [0, 1, 3, 7];
// Every logit with every count: the leaves' rows.
const ROWS = LOGITS.flatMap((a) => COUNTS.map((n) => [a, n]));

interface Case {
  outputs: Node[];
  bindings: Record<string, number[]>;
}

/** A family's log density per row and its gradient in the logit and the other (scalar) parameters. */
function family(make: (alpha: Node, others: Node[]) => P.Distribution, others: number[]): () => Case {
  return () => {
    const alpha = param("alpha", [ROWS.length]), n = param("n", [ROWS.length]);
    const ps = others.map((_, j) => param(`p${j}`));
    const lp = make(alpha, ps).logpdf(n);
    const bindings = { alpha: ROWS.map((r) => r[0]!), n: ROWS.map((r) => r[1]!), ...Object.fromEntries(others.map((v, j) => [`p${j}`, [v]])) };
    return { outputs: [lp, ...grad(sum(lp), [alpha, ...ps])], bindings };
  };
}

/** A log-scale function of the logits (and of a second operand, their negation less 1) with its gradient. */
function logScale(f: (x: Node) => Node): () => Case {
  return () => {
    const x = param("x", [LOGITS.length]);
    const out = f(x);
    return { outputs: [out, ...grad(sum(out), [x])], bindings: { x: LOGITS } };
  };
}

// Each case with the dtypes it runs in by default; PPL_LONG=1 runs every case in both. The negative
// binomial forms differ from the Poisson ones only by NB2's terms, which the core-distribution GPU test
// holds (its shaders take the longest to build), so they run under PPL_LONG only.
const cases: [string, () => Case, ("f64" | "f32")[]][] = [
  ["zeroInflatedPoissonLogit", family((a, [l]) => P.zeroInflatedPoissonLogit(a, l!), [2.5]), ["f64"]],
  ["zeroInflatedNegativeBinomialLogit", family((a, [m, f]) => P.zeroInflatedNegativeBinomialLogit(a, m!, f!), [3, 1.5]), []],
  ["hurdlePoissonLogit", family((a, [l]) => P.hurdlePoissonLogit(a, l!), [2.5]), ["f32"]],
  ["hurdleNegativeBinomialLogit", family((a, [m, f]) => P.hurdleNegativeBinomialLogit(a, m!, f!), [3, 1.5]), []],
  ["logInvLogit and log1mInvLogit", logScale((x) => mul(logInvLogit(x), log1mInvLogit(x))), ["f64"]],
  ["logSumExp", logScale((x) => logSumExp(x, sub(mul(-1, x), 1))), ["f32"]],
  ["logMix", logScale((x) => logMix(0.25, x, mul(-1, x))), ["f64"]],
  ["logSoftmax", logScale((x) => logSoftmax(mul(reshape(x, [LOGITS.length, 1]), constant([1, 0, -1], [3])))), ["f64", "f32"]],
];
const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";

describe.runIf(device !== undefined)("logit forms and log-scale functions on the Vulkan backend", async () => {
  const backend = await vulkanBackend();
  const dtypes = device?.features.shaderFloat64 ? (["f64", "f32"] as const) : (["f32"] as const);
  for (const dtype of dtypes) {
    describe(dtype, () => {
      // Without f64 shaders the f32 run takes every case.
      for (const [name, make] of cases.filter(([, , by]) => LONG || dtypes.length === 1 || by.includes(dtype))) {
        it(`${name}: values and gradients match the reference interpreter`, async () => {
          const { outputs, bindings } = make();
          const want = interpret(outputs, bindings);
          const exe = await backend.compile(optimize(dtype === "f32" ? castFloats(outputs, "f32") : outputs));
          expect(exe.stats.hostNodes).toBe(0);
          const got = await exe.run(Object.fromEntries(Object.entries(bindings).map(([k, x]) => [k, Float64Array.from(x)])));
          want.forEach((w, i) => w.data.forEach((v, j) => {
            const g = Number(got[i]!.data[j]);
            expect(Number.isFinite(g), `output ${i}[${j}]: ${g}`).toBe(true);
            // f64: relative, so that a log density of −4e−18 (alpha = 40) must keep its digits; f32: its
            // rounding relative to the size of the terms (|alpha| ≤ 40), as the f64 reference is not f32's.
            const tolerance = dtype === "f64" ? 1e-13 * Math.abs(v) + 1e-300 : 2e-6 * (1 + Math.abs(v)) * 40;
            expect(Math.abs(g - v), `output ${i}[${j}]: ${g} vs ${v}`).toBeLessThanOrEqual(tolerance);
          }));
          exe.dispose?.();
        });
      }
    });
  }
});
