/**
 * Gradients through `scan` against finite differences: small recurrences with several carries,
 * integer carries and reverse order, a GARCH(1,1) likelihood and a two-state HMM forward pass on
 * the posteriordb data, and a scan nested inside a scan body.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";
import type { Node } from "../src/index.ts";

const real = (lo: number, hi: number) => fc.noBias(fc.integer({ min: 0, max: 2 ** 30 })).map((k) => lo + ((hi - lo) * k) / 2 ** 30);
const reals = (n: number, lo: number, hi: number) => fc.array(real(lo, hi), { minLength: n, maxLength: n });

function expectGradOk(f: Node, wrt: Node[], bindings: T.Bindings, scale?: number): void {
  const r = T.checkGrad(f, wrt, bindings, scale === undefined ? {} : { scale });
  if (!r.ok) throw new Error(r.message);
}

const loadData = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../../shared/posteriordb/${name}/data.json`, import.meta.url), "utf8")) as Record<string, number | number[]>;

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
const normalLpdf = (y: T.Operand, mu: T.Operand, sigma: T.Operand) =>
  T.sub(T.sub(T.mul(-0.5, T.square(T.div(T.sub(y, mu), sigma))), T.log(sigma)), LOG_SQRT_2PI);

describe("scan gradients vs finite differences", () => {
  it("a recurrence with a vector carry, xs, consts and a captured parameter", () => {
    const init = T.param("init", [2]), xs = T.param("xs", [5, 2]), k = T.param("k", [2]), a = T.param("a");
    const { carry, ys } = T.scan(
      ([c], [x], [kk]) => {
        const next = T.tanh(T.add(T.mul(c!, kk!), T.mul(x!, a)));
        return { carry: [next], ys: [T.mul(next, T.sin(x!))] };
      },
      [init], [xs], [k],
    );
    const w = T.data("w", [5, 2]);
    const f = T.add(T.sum(T.mul(w, ys[0]!)), T.sum(T.square(carry[0]!)));
    fc.assert(
      fc.property(reals(2, -1, 1), reals(10, -1, 1), reals(2, -1.5, 1.5), real(0.2, 2), reals(10, -1, 1), (iv, xv, kv, av, wv) => {
        expectGradOk(f, [init, xs, k, a], { init: iv, xs: xv, k: kv, a: av, w: wv });
      }),
      { numRuns: 15 },
    );
  });

  it("a reverse scan with two float carries, an integer carry and an integer x", () => {
    const h = T.param("h"), s = T.param("s", [3]), xs = T.param("xs", [4, 3]);
    const counts = T.constant([1, 2, 0, 3], [4], "i32");
    const { carry, ys } = T.scan(
      ([c1, c2, n], [x, m]) => {
        const c1n = T.add(T.mul(c1!, 0.9), T.sum(T.mul(x!, c2!)));
        const c2n = T.sin(T.add(c2!, T.mul(x!, T.cast(m!, "f64"))));
        return { carry: [c1n, c2n, T.add(n!, m!)], ys: [T.mul(c1n, c2n), m!] };
      },
      [h, s, T.constant(0, [], "i32")], [xs, counts], [], { reverse: true },
    );
    const f = T.add(T.add(T.sum(T.exp(T.mul(ys[0]!, 0.3))), T.mul(carry[0]!, T.cast(carry[2]!, "f64"))), T.sum(carry[1]!));
    expect(ys[1]!.dtype).toBe("i32");
    fc.assert(
      fc.property(real(-1, 1), reals(3, -1, 1), reals(12, -1, 1), (hv, sv, xv) => {
        expectGradOk(f, [h, s, xs], { h: hv, s: sv, xs: xv });
      }),
      { numRuns: 15 },
    );
  });

  it("a scan whose body ignores its carry, and one with no xs", () => {
    const p = T.param("p", [3]);
    const { ys } = T.scan((_c, [x]) => ({ carry: [], ys: [T.square(x!)] }), [], [T.mul(p, 2)]);
    const { carry } = T.scan(([c]) => ({ carry: [T.mul(c!, T.add(c!, 1))] }), [T.sum(p)], [], [], { length: 3 });
    const f = T.add(T.sum(ys[0]!), carry[0]!);
    expectGradOk(f, [p], { p: [0.1, -0.2, 0.05] });
  });

  it("GARCH(1,1) log-likelihood (garch-garch11 data)", () => {
    const data = loadData("garch-garch11");
    const yv = data.y as number[];
    const n = yv.length;
    const y = T.data("y", [n]), sigma1 = T.data("sigma1");
    const mu = T.param("mu"), a0 = T.param("alpha0"), a1 = T.param("alpha1"), b1 = T.param("beta1");
    const prev = T.slice(y, [{ stop: n - 1 }]), cur = T.slice(y, [{ start: 1 }]);
    // sigma[t]² = α0 + α1·(y[t−1] − μ)² + β1·sigma[t−1]²; y[t] ~ normal(μ, sigma[t]).
    const { ys } = T.scan(
      ([s2], [yp, yc]) => {
        const next = T.add(T.add(a0, T.mul(a1, T.square(T.sub(yp!, mu)))), T.mul(b1, s2!));
        return { carry: [next], ys: [normalLpdf(yc!, mu, T.sqrt(next))] };
      },
      [T.square(sigma1)], [prev, cur],
    );
    const loglik = T.add(normalLpdf(T.index(y, 0), mu, sigma1), T.sum(ys[0]!));
    fc.assert(
      fc.property(real(4.5, 5.5), real(0.5, 2), real(0.05, 0.5), real(0.05, 0.45), (m, al0, al1, be1) => {
        expectGradOk(loglik, [mu, a0, a1, b1], { y: yv, sigma1: data.sigma1 as number, mu: m, alpha0: al0, alpha1: al1, beta1: be1 });
      }),
      { numRuns: 4 },
    );
  });

  it("two-state HMM forward algorithm with log-sum-exp (hmm_example data)", () => {
    const data = loadData("hmm_example-hmm_example");
    const yv = data.y as number[];
    const n = yv.length, K = 2;
    const y = T.data("y", [n]);
    const theta = T.param("theta", [K, K]); // row j: transition probabilities out of state j
    const mu = T.param("mu", [K]);
    const logTheta = T.log(theta);
    const emit = (yt: Node) => normalLpdf(yt, mu, 1); // [K]
    // gamma[t, k] = log Σ_j exp(gamma[t−1, j] + log θ[j, k]) + log p(y_t | μ_k)
    const { carry } = T.scan(
      ([g], [yt]) => ({ carry: [T.add(T.logsumexp(T.add(T.reshape(g!, [K, 1]), logTheta), 0), emit(yt!))] }),
      [emit(T.index(y, 0))], [T.slice(y, [{ start: 1 }])],
    );
    const loglik = T.logsumexp(carry[0]!);
    fc.assert(
      fc.property(real(0.2, 0.8), real(0.2, 0.8), real(2, 4), real(9, 11), (p, q, m1, m2) => {
        expectGradOk(loglik, [theta, mu], { y: yv, theta: [p, 1 - p, q, 1 - q], mu: [m1, m2] });
      }),
      { numRuns: 4 },
    );
  });

  it("a scan nested inside a scan body, the inner one closing over the outer carry and a parameter", () => {
    const rows = T.param("rows", [3, 4]), a = T.param("a"), c0 = T.param("c0");
    const { carry, ys } = T.scan(
      ([c], [row]) => {
        const inner = T.scan(
          ([s], [v]) => {
            const next = T.add(T.mul(s!, a), T.sin(T.mul(v!, c!)));
            return { carry: [next], ys: [T.square(next)] };
          },
          [T.mul(c!, 0.5)], [row!],
        );
        const cn = T.add(c!, T.mul(0.3, T.tanh(inner.carry[0]!)));
        return { carry: [cn], ys: [T.sum(inner.ys[0]!)] };
      },
      [c0], [rows],
    );
    const f = T.add(T.sum(T.mul(ys[0]!, T.constant([1, -0.5, 0.25], [3]))), T.square(carry[0]!));
    fc.assert(
      fc.property(reals(12, -1, 1), real(-0.8, 0.8), real(-1, 1), (rv, av, cv) => {
        expectGradOk(f, [rows, a, c0], { rows: rv, a: av, c0: cv });
      }),
      { numRuns: 8 },
    );
  });

  it("tuple_get routes cotangents of several ys of one scan", () => {
    const xs = T.param("xs", [3]);
    const { ys } = T.scan((_c, [x]) => ({ carry: [], ys: [T.exp(x!), T.sin(x!)] }), [], [xs]);
    expect(TI.toposort([ys[0]!]).some((node) => node.op === "tuple_get")).toBe(true);
    const [g] = T.grad(T.add(T.sum(ys[0]!), T.sum(T.mul(ys[1]!, 2))), [xs]);
    const xv = [0.1, 0.7, -0.4];
    const got = Array.from(T.interpret([g!], { xs: xv })[0]!.data);
    got.forEach((v, i) => expect(v).toBeCloseTo(Math.exp(xv[i]!) + 2 * Math.cos(xv[i]!), 12));
  });
});
