// Stan's log-scale functions (log_inv_logit, log1m_inv_logit, log1p_exp, log_sum_exp, log_mix,
// log_softmax, softmax) compile to @ppl/tensor's exact forms: at extreme logits a program's log density
// is the tensor function's value, and a zero-inflated Poisson written with them in Stan is
// zeroInflatedPoissonLogit's, finite and exact at alpha = 36 and 38.
import { describe, expect, it } from "vitest";
import { compileModel, zeroInflatedPoissonLogit } from "@ppl/ppl";
import * as T from "@ppl/tensor";
import { compileStan } from "../src/index.ts";

const compile = (text: string, data: unknown) => compileModel(compileStan(text, "t.stan"), data);
const valueOf = (n: T.Node) => T.interpret([n], {})[0]!.data[0]!;
// The compiled density may round its one term once more than the tensor function alone.
const close = (got: number, want: number) => expect(Math.abs(got - want), `${got} vs ${want}`).toBeLessThanOrEqual(4 * Number.EPSILON * Math.abs(want) + 1e-300);

const CASES: [string, (x: number) => T.Node][] = [
  ["log_inv_logit(x)", (x) => T.logInvLogit(x)],
  ["log1m_inv_logit(x)", (x) => T.log1mInvLogit(x)],
  ["log1p_exp(x)", (x) => T.log1pExp(x)],
  ["log_sum_exp(x, -x - 1)", (x) => T.logSumExp(x, -x - 1)],
  ["log_mix(0.25, x, -x)", (x) => T.logMix(0.25, x, -x)],
  ["log_softmax([x, 0, -x]')[1]", (x) => T.index(T.logSoftmax(T.constant([x, 0, -x], [3])), 0)],
  ["log(softmax([x, 0, -x]')[2])", (x) => T.log(T.exp(T.index(T.logSoftmax(T.constant([x, 0, -x], [3])), 1)))],
];

describe("Stan's log-scale functions", () => {
  for (const [expr, want] of CASES) {
    it(`${expr} is the tensor form at x in ±1, ±40, ±700`, () => {
      const m = compile(`parameters { real x; }\nmodel { target += ${expr}; }`, {});
      for (const x of [-700, -40, -1, 1, 40, 700]) close(m.logDensityAt([x]), valueOf(want(x)));
    });
  }

  it("a zero-inflated Poisson written with log_inv_logit and log1m_inv_logit is zeroInflatedPoissonLogit, finite at alpha = 36 and 38", () => {
    const text = `data { int N; array[N] int y; real lambda; }
parameters { real alpha; }
model {
  for (n in 1:N) {
    if (y[n] == 0) target += log_sum_exp(log_inv_logit(alpha), log1m_inv_logit(alpha) - lambda);
    else target += log1m_inv_logit(alpha) + poisson_lpmf(y[n] | lambda);
  }
}`;
    const y = [0, 3, 0, 1];
    const m = compile(text, { N: y.length, y, lambda: 2.5 });
    for (const alpha of [-40, 0, 36, 38, 40]) {
      const want = valueOf(T.sum(zeroInflatedPoissonLogit(alpha, 2.5).logpdf(T.constant(y, [y.length]))));
      expect(Number.isFinite(want)).toBe(true);
      expect(Math.abs(m.logDensityAt([alpha]) - want)).toBeLessThanOrEqual(1e-13 * Math.abs(want));
    }
  });
});
