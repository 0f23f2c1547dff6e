import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compileModel } from "@ppl/ppl";
import { toposort } from "@ppl/tensor/ir";
import { compileStan } from "../src/index.ts";

// Data values decide loop bounds, branches, indices and sizes while the program is traced, as
// Stan decides them at run time; the graph still reads the data through its data leaves.
const compile = (text: string, data: unknown) => compileModel(compileStan(text, "t.stan"), data);
const LOG_2PI = Math.log(2 * Math.PI);
const normalLp = (y: number, mu: number, sigma: number) => -0.5 * ((y - mu) / sigma) ** 2 - Math.log(sigma) - 0.5 * LOG_2PI;

const RAGGED = `data {
  int J;
  array[J] int<lower=0> K;
  int N;
  vector[N] y;
}
parameters { vector[J] mu; }
model {
  int pos = 1;
  for (j in 1:J) {
    for (k in 1:K[j]) y[pos + k - 1] ~ normal(mu[j], 1);
    pos += K[j];
  }
}`;

function raggedLp(K: readonly number[], y: readonly number[], mu: readonly number[]): number {
  let lp = 0;
  let pos = 0;
  K.forEach((k, j) => {
    for (let i = 0; i < k; i++) lp += normalLp(y[pos + i]!, mu[j]!, 1);
    pos += k;
  });
  return lp;
}

describe("data values known while tracing", () => {
  it("a ragged loop whose bounds are entries of an int data array", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 1000 }), (K, seed) => {
        const N = K.reduce((a, b) => a + b, 0);
        const y = Array.from({ length: N }, (_, i) => Math.sin(seed + 1.3 * i));
        const mu = K.map((_, j) => Math.cos(seed + 0.7 * j));
        const m = compile(RAGGED, { J: K.length, K, N, y });
        expect(m.logDensityAt(mu)).toBeCloseTo(raggedLp(K, y, mu), 9);
      }),
      { numRuns: 15, seed: 50 },
    );
  });

  it("a branch on a data entry decides which term each observation adds (zero-inflated Poisson)", () => {
    const text = `data { int N; array[N] int y; }
parameters { real<lower=0, upper=1> theta; real<lower=0> lambda; }
model {
  for (n in 1:N) {
    if (y[n] == 0) target += log_sum_exp(log(theta), log1m(theta) + poisson_lpmf(y[n] | lambda));
    else target += log1m(theta) + poisson_lpmf(y[n] | lambda);
  }
}`;
    const y = [0, 3, 0, 1, 5, 0];
    const m = compile(text, { N: y.length, y });
    const [theta, lambda] = [0.3, 2.5];
    const logFact = (k: number): number => (k <= 1 ? 0 : Math.log(k) + logFact(k - 1));
    const pois = (k: number) => k * Math.log(lambda) - lambda - logFact(k);
    const want = y.reduce((s, k) => s + (k === 0 ? Math.log(theta + (1 - theta) * Math.exp(pois(0))) : Math.log(1 - theta) + pois(k)), 0);
    // q: theta on the logit scale, lambda on the log scale; the Jacobians of both transforms added.
    const q = [Math.log(theta / (1 - theta)), Math.log(lambda)];
    const jacobian = Math.log(theta * (1 - theta)) + Math.log(lambda);
    expect(m.logDensityAt(q)).toBeCloseTo(want + jacobian, 9);
  });

  it("a while loop over real data, a segment's start and a size read from data", () => {
    const text = `data { int N; vector[N] t; real cut; array[2] int s; }
transformed data { int below = 0; while (below < N && t[below + 1] < cut) below += 1; }
parameters { real mu; }
model {
  vector[max(s)] z = segment(t, s[1], max(s));
  target += normal_lpdf(t[1:below] | mu, 1);
  target += -sum(z) * mu;
}`;
    const t = [0.1, 0.4, 0.9, 1.4, 2.0];
    const m = compile(text, { N: 5, t, cut: 1, s: [2, 3] });
    const mu = 0.25;
    const want = [0.1, 0.4, 0.9].reduce((a, v) => a + normalLp(v, mu, 1), 0) - (0.4 + 0.9 + 1.4) * mu;
    expect(m.logDensityAt([mu])).toBeCloseTo(want, 10);
  });

  it("each build sees its own data: the same program with other values traces other loops", () => {
    const model = compileStan(RAGGED, "t.stan");
    const a = compileModel(model, { J: 2, K: [1, 2], N: 3, y: [1, 2, 3] });
    const b = compileModel(model, { J: 2, K: [2, 1], N: 3, y: [1, 2, 3] });
    expect(a.logDensityAt([0.5, -0.5])).toBeCloseTo(raggedLp([1, 2], [1, 2, 3], [0.5, -0.5]), 10);
    expect(b.logDensityAt([0.5, -0.5])).toBeCloseTo(raggedLp([2, 1], [1, 2, 3], [0.5, -0.5]), 10);
  });

  it("a vectorized loop reads m[a[n], b[n]] entry by entry, and fills a vector with a value of no index", () => {
    const text = `data { int N; array[N] int a; array[N] int b; vector[N] y; }
transformed data { vector[N] ones; for (n in 1:N) ones[n] = 1.0; }
parameters { matrix[2, 3] m; }
model { for (n in 1:N) y[n] ~ normal(m[a[n], b[n]] * ones[n], 1); }`;
    const [a, b, y] = [[1, 2, 2, 1], [3, 1, 2, 2], [0.5, -1, 2, 0.3]];
    const model = compile(text, { N: 4, a, b, y });
    expect(model.recorded.observations[0]!.shape).toEqual([4]);
    const rows = [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]];
    const want = y.reduce((s, v, n) => s + normalLp(v, rows[a[n]! - 1]![b[n]! - 1]!, 1), 0);
    expect(model.logDensityAt(model.unconstrain({ m: rows }))).toBeCloseTo(want, 10);
  });

  it("a transformed data matrix filled entry by entry in a loop is one constant in the model's graph, with the loop's values", () => {
    const program = `data { int J; int K; matrix[J, K] W; vector[J] y; }
transformed data {
  matrix[J, K] W_adj;
  for (k in 1:K) for (j in 1:J) W_adj[j, k] = (W[j, k] - mean(W[:, k])) / sd(W[:, k]);
}
parameters { vector[K] lambda; }
model { y ~ normal(W_adj * lambda, 1); }`;
    const J = 40, K = 3;
    const W = Array.from({ length: J }, (_, j) => Array.from({ length: K }, (_, k) => Math.round(100 * Math.sin(1.1 * j + 2.3 * k)) / 100));
    const y = Array.from({ length: J }, (_, j) => Math.round(100 * Math.cos(0.7 * j)) / 100);
    const model = compile(program, { J, K, W, y });
    const stats = Array.from({ length: K }, (_, k) => {
      const col = W.map((r) => r[k]!);
      const mean = col.reduce((a, b) => a + b, 0) / J;
      return { mean, sd: Math.sqrt(col.reduce((a, b) => a + (b - mean) ** 2, 0) / (J - 1)) };
    });
    const lambda = [0.3, -0.2, 0.5];
    const want = y.reduce((s, v, j) => s + normalLp(v, W[j]!.reduce((a, w, k) => a + ((w - stats[k]!.mean) / stats[k]!.sd) * lambda[k]!, 0), 1), 0);
    expect(model.logDensityAt(lambda)).toBeCloseTo(want, 9);
    expect(toposort([model.logDensity]).length).toBeLessThan(40);
  });
});
