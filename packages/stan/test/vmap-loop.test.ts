import { describe, expect, it } from "vitest";
import { compileModel, type CompiledModel } from "@ppl/ppl";
import { getBackend, grad } from "@ppl/tensor";
import { toposort } from "@ppl/tensor/ir";
import { compileStan } from "../src/index.ts";

// Each program is compared with its unrolled twin: the same program with `if (n < 0) break;` at the
// end of the loop's body, which never runs but keeps the loop pass's forms from taking the loop (a
// break ends an iteration early), so that the twin is traced one iteration at a time.
const UNROLL = "if (n < 0) break;";
const twin = (program: string): string => program.replace("/*END*/", UNROLL);

const build = (program: string, data: unknown): CompiledModel => compileModel(compileStan(program.replace("/*END*/", ""), "t.stan"), data, { allowExtraKeys: true });

async function valueAndGradient(m: CompiledModel): Promise<(q: Float64Array) => { value: number; gradient: Float64Array }> {
  const [g] = grad(m.logDensity, [m.q]);
  const exe = (await getBackend("cpu")).compileSync!([m.logDensity, g!]);
  return (q) => {
    const [v, dq] = exe.runSync!({ ...m.dataBindings, q: { dtype: "f64", shape: [m.dim], data: q } });
    return { value: v!.data[0]!, gradient: Float64Array.from(dq!.data) };
  };
}

const point = (dim: number, k: number) => Float64Array.from({ length: dim }, (_, i) => 0.5 * Math.sin(1.3 * i + 2.1 * k + 0.3));
const nodes = (m: CompiledModel): number => toposort([m.logDensity]).length;

// The program and its unrolled twin give the same log density and gradient at three points.
async function sameAsUnrolled(program: string, data: unknown): Promise<{ vmapped: CompiledModel; unrolled: CompiledModel }> {
  const vmapped = build(program, data);
  const unrolled = compileModel(compileStan(twin(program), "t.stan"), data, { allowExtraKeys: true });
  expect(vmapped.dim).toBe(unrolled.dim);
  // The index and placeholder leaves of the batched trace are gone from the model.
  expect(toposort([vmapped.logDensity]).filter((n) => n.op === "data" && String(n.attrs.name).startsWith("vmap:"))).toEqual([]);
  const [a, b] = [await valueAndGradient(vmapped), await valueAndGradient(unrolled)];
  for (let k = 0; k < 3; k++) {
    const q = point(vmapped.dim, k);
    const [x, y] = [a(q), b(q)];
    expect(Number.isFinite(x.value)).toBe(true);
    expect(x.value).toBeCloseTo(y.value, 9);
    x.gradient.forEach((g, i) => expect(g).toBeCloseTo(y.gradient[i]!, 9));
  }
  return { vmapped, unrolled };
}

const sines = (n: number, f: number): number[] => Array.from({ length: n }, (_, i) => Math.round(100 * Math.sin(f * i + 0.4)) / 100);

describe("the loop pass's vmapped form", () => {
  it("runs a loop that fills a scratch array per row and reads it whole (normal_mixture_k) as one batched trace", async () => {
    const program = `data { int K; int N; array[N] real y; }
parameters { simplex[K] theta; array[K] real mu; array[K] real<lower=0, upper=10> sigma; }
model {
  array[K] real ps;
  mu ~ normal(0, 10);
  for (n in 1:N) {
    for (k in 1:K) ps[k] = log(theta[k]) + normal_lpdf(y[n] | mu[k], sigma[k]);
    target += log_sum_exp(ps);
    /*END*/
  }
}`;
    const data = (N: number) => ({ K: 3, N, y: sines(N, 0.9).map((v) => 3 * v) });
    const { vmapped, unrolled } = await sameAsUnrolled(program, data(40));
    // The graph does not grow with the rows: one iteration's graph, batched.
    expect(nodes(build(program, data(80)))).toBe(nodes(vmapped));
    expect(nodes(vmapped)).toBeLessThan(nodes(unrolled) / 5);
  });

  it("splits the iterations by a condition on data (Mth's if (s[i] > 0)), each group batched, with vector terms of a matrix's rows", async () => {
    const program = `data { int M; int T; array[M, T] int<lower=0, upper=1> y; }
transformed data { array[M] int s; for (i in 1:M) s[i] = sum(y[i]); }
parameters { real<lower=0, upper=1> omega; vector[T] lp; vector[M] eps; }
transformed parameters { matrix[M, T] logit_p; for (j in 1:T) logit_p[:, j] = lp[j] + eps; }
model {
  eps ~ normal(0, 1);
  for (n in 1:M) {
    if (s[n] > 0) {
      target += bernoulli_lpmf(1 | omega) + bernoulli_logit_lpmf(y[n] | logit_p[n]);
    } else {
      target += log_sum_exp(bernoulli_lpmf(1 | omega) + bernoulli_logit_lpmf(y[n] | logit_p[n]), bernoulli_lpmf(0 | omega));
    }
    /*END*/
  }
}`;
    const T = 4;
    const data = (M: number) => ({ M, T, y: Array.from({ length: M }, (_, i) => Array.from({ length: T }, (_, t) => (i % 3 === 0 ? 0 : Number(Math.sin(i * T + t) > 0.2)))) });
    const { vmapped, unrolled } = await sameAsUnrolled(program, data(30));
    expect(nodes(build(program, data(60)))).toBe(nodes(vmapped));
    expect(nodes(vmapped)).toBeLessThan(nodes(unrolled) / 4);
  });

  it("fills a map read back at its own row, keeps a scratch variable's last value, and groups a ragged inner loop by its bound", async () => {
    const program = `data { int N; array[N] int K; vector[N] x; }
parameters { real mu; real<lower=0> tau; }
model {
  vector[N] m;
  vector[N] total;
  real last;
  for (n in 1:N) {
    real acc = 0;
    m[n] = mu + tau * x[n];
    for (k in 1:K[n]) acc += m[n] / k;
    total[n] = acc;
    last = acc * 2;
    x[n] ~ normal(m[n] / 3, 1 + tau);
    /*END*/
  }
  target += -0.5 * dot_self(total) + last;
}`;
    const data = (N: number) => ({ N, K: Array.from({ length: N }, (_, i) => 1 + (i % 3)), x: sines(N, 0.5) });
    const { vmapped } = await sameAsUnrolled(program, data(24));
    expect(nodes(build(program, data(48)))).toBe(nodes(vmapped));
  });

  it("assigns x[i, i] in a loop over i (a GP's jitter on the diagonal) as one batched trace", async () => {
    const program = `data { int N; array[N] real t; vector[N] y; }
parameters { real<lower=0> rho; real<lower=0> alpha; }
model {
  matrix[N, N] K = gp_exp_quad_cov(t, alpha, rho);
  for (n in 1:N) {
    K[n, n] = K[n, n] + 0.1;
    /*END*/
  }
  y ~ multi_normal(rep_vector(0, N), K);
}`;
    const data = (N: number) => ({ N, t: Array.from({ length: N }, (_, i) => i / 2), y: sines(N, 0.8) });
    const { vmapped, unrolled } = await sameAsUnrolled(program, data(10));
    expect(nodes(build(program, data(20)))).toBe(nodes(vmapped));
    expect(nodes(vmapped)).toBeLessThan(nodes(unrolled));
  });

  it("leaves a loop that carries state between iterations to the other forms (a scratch value read before it is assigned)", async () => {
    const program = `data { int N; vector[N] x; }
parameters { real mu; }
model {
  real carried = 0;
  for (n in 1:N) {
    carried = carried * 0.5 + x[n] * mu;
    target += -square(carried);
    /*END*/
  }
}`;
    const N = 12;
    const { vmapped } = await sameAsUnrolled(program, { N, x: sines(N, 0.7) });
    // Traced one iteration at a time: a graph that grows with the rows.
    expect(nodes(build(program, { N: 2 * N, x: sines(2 * N, 0.7) }))).toBeGreaterThan(nodes(vmapped));
  });

  it("fills a matrix's columns (x[t, n] in a loop over n) whose steps read the column's history through sub_col (ecdc0401's renewal equation)", async () => {
    const program = `data { int M; int T; int T0; vector[T] w; }
parameters { vector<lower=0>[M] y0; real<lower=0> r; }
transformed parameters {
  matrix[T, M] pred = rep_matrix(0, T, M);
  matrix[T, M] cum = rep_matrix(0, T, M);
  for (n in 1:M) {
    pred[1:T0, n] = rep_vector(y0[n], T0);
    cum[2:T0, n] = cumulative_sum(pred[2:T0, n]);
    for (t in (T0 + 1):T) {
      real conv = dot_product(sub_col(pred, 1, n, t - 1), tail(w, t - 1));
      cum[t, n] = cum[t - 1, n] + pred[t - 1, n];
      pred[t, n] = r * conv / (1 + 0.01 * cum[t, n]);
    }
    /*END*/
  }
}
model {
  y0 ~ exponential(1);
  r ~ normal(1, 0.2);
  target += normal_lpdf(to_vector(pred) | 1, 2) + normal_lpdf(col(cum, 2) | 3, 2);
}`;
    const data = (M: number) => ({ M, T: 12, T0: 3, w: Array.from({ length: 12 }, (_, i) => Math.exp(-0.4 * (11 - i))) });
    const { vmapped, unrolled } = await sameAsUnrolled(program, data(9));
    // One column's trace, batched: the graph does not grow with the columns.
    expect(nodes(build(program, data(18)))).toBe(nodes(vmapped));
    expect(nodes(vmapped)).toBeLessThan(nodes(unrolled) / 3);
  });

  it("sums an accumulation (s += …, x[k] -= …, never read in the loop) over a vectorized loop's iterations", async () => {
    const program = `data { int K; vector[K] a; }
parameters { vector[K] theta; }
model {
  real s = 0;
  array[2] real parts = {0.0, 0.0};
  for (n in 1:K) {
    s += a[n] * theta[n];
    parts[2] -= 0.5 * square(theta[n]);
    /*END*/
  }
  target += s + parts[2];
}`;
    const K = 20;
    const { vmapped, unrolled } = await sameAsUnrolled(program, { K, a: sines(K, 0.3) });
    expect(nodes(build(program, { K: 2 * K, a: sines(2 * K, 0.3) }))).toBe(nodes(vmapped));
    expect(nodes(vmapped)).toBeLessThan(nodes(unrolled) / 3);
  });
});

