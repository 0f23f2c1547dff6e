import { describe, expect, it } from "vitest";
import { compileModel } from "@ppl/ppl";
import { compileStan, StanError } from "../src/index.ts";

const compile = (text: string, data: unknown) => compileModel(compileStan(text, "t.stan"), data);
const DATA = { N: 5, x: [0.5, -1, 2, 0.1, 1.5], y: [1.2, -0.7, 3.1, 0.4, 2.2] };
const HEAD = "data { int N; vector[N] x; vector[N] y; }\nparameters { real mu; real beta; real<lower=0> sigma; }\n";

function refused(text: string, data: unknown, message: string): void {
  let caught: unknown;
  try {
    compileModel(compileStan(text, "t.stan"), data, { allowExtraKeys: true });
  } catch (e) {
    caught = e;
  }
  expect(caught, "the program should be refused").toBeInstanceOf(Error);
  expect((caught as Error).message).toContain(message);
}

describe("compileStan", () => {
  it("runs a loop of independent iterations as one vectorized observation, equal to the vector form", () => {
    const loop = compile(`${HEAD}model { for (n in 1:N) y[n] ~ normal(mu + beta * x[n], sigma); }`, DATA);
    const vec = compile(`${HEAD}model { y ~ normal(mu + beta * x, sigma); }`, DATA);
    expect(loop.recorded.observations.length).toBe(1);
    expect(loop.recorded.observations[0]!.shape).toEqual([5]);
    for (const q of [[0.1, 0.2, 0.3], [-1, 2, -0.5]]) expect(loop.logDensityAt(q)).toBeCloseTo(vec.logDensityAt(q), 10);
  });

  it("runs a loop that fills a vector declared outside it (a map) as one vectorized assignment", () => {
    const map = compile(`${HEAD}model {\n  vector[N] m;\n  for (n in 1:N) m[n] = mu + beta * x[n];\n  y ~ normal(m, sigma);\n}`, DATA);
    const vec = compile(`${HEAD}model { y ~ normal(mu + beta * x, sigma); }`, DATA);
    expect(map.logDensityAt([0.2, -0.4, 0.3])).toBeCloseTo(vec.logDensityAt([0.2, -0.4, 0.3]), 10);
    // A loop that reads what it fills carries state and is unrolled: the same density either way.
    const carried = compile(`${HEAD}model {\n  vector[N] m;\n  m[1] = mu;\n  for (n in 2:N) m[n] = m[n - 1] + beta * x[n];\n  y ~ normal(m, sigma);\n}`, DATA);
    const cum = [0.2];
    for (let n = 1; n < 5; n++) cum.push(cum[n - 1]! - 0.4 * DATA.x[n]!);
    const want = DATA.y.reduce((a, v, i) => a - 0.5 * ((v - cum[i]!) / Math.exp(0.3)) ** 2 - 0.3 - 0.5 * Math.log(2 * Math.PI), 0) + 0.3;
    expect(carried.logDensityAt([0.2, -0.4, 0.3])).toBeCloseTo(want, 8);
  });

  it("unrolls a loop that carries state, with the same density as its closed form", () => {
    const carried = compile(`${HEAD}model {\n  real acc = 0;\n  for (n in 1:N) acc += normal_lpdf(y[n] | mu + beta * x[n], sigma);\n  target += acc;\n}`, DATA);
    const closed = compile(`${HEAD}model { target += normal_lpdf(y | mu + beta * x, sigma); }`, DATA);
    expect(carried.logDensityAt([0.3, -0.2, 0.1])).toBeCloseTo(closed.logDensityAt([0.3, -0.2, 0.1]), 10);
  });

  it("a branch on a parameter selects what each side assigns", () => {
    const m = compile(`${HEAD}model { y ~ normal(mu, sigma); }\ngenerated quantities {\n  real s;\n  if (mu > 0) s = 1; else s = -1;\n}`, DATA);
    const names = m.constrainedNames();
    expect(m.generatedAt([2, 0, 0])[names.indexOf("s")]).toBe(1);
    expect(m.generatedAt([-2, 0, 0])[names.indexOf("s")]).toBe(-1);
  });

  it("a transformed parameter outside its bounds makes the log density -inf", () => {
    const m = compile(`${HEAD}transformed parameters { real<lower=0> m2 = mu; }\nmodel { y ~ normal(mu, sigma); }`, DATA);
    expect(Number.isFinite(m.logDensityAt([1, 0, 0]))).toBe(true);
    expect(m.logDensityAt([-1, 0, 0])).toBe(-Infinity);
  });

  it("a truncated observation is normalized over its interval", () => {
    const m = compile("data { real y; }\nparameters { real mu; }\nmodel { y ~ normal(mu, 1) T[0, ]; }", { y: 0.7 });
    const mu = 0.3;
    const phi = (z: number) => 0.5 * (1 + erf(z / Math.SQRT2));
    const want = -0.5 * (0.7 - mu) ** 2 - 0.5 * Math.log(2 * Math.PI) - Math.log(1 - phi(-mu));
    expect(m.logDensityAt([mu])).toBeCloseTo(want, 8);
  });

  it("user functions, integer division and indexing by int data", () => {
    const text = `functions { real shift(real a, int k) { return a + k / 2; } }
data { int N; array[N] int g; vector[N] y; }
parameters { vector[2] a; }
model { for (n in 1:N) y[n] ~ normal(shift(a[g[n]], 3), 1); }`;
    const m = compile(text, { N: 3, g: [1, 2, 1], y: [1, 2, 3] });
    const lp = (mu: number[], y: number[]) => y.reduce((s, v, i) => s - 0.5 * (v - mu[i]!) ** 2 - 0.5 * Math.log(2 * Math.PI), 0);
    // k / 2 with ints is 1 (integer division), as in Stan.
    expect(m.logDensityAt([0.5, -0.5])).toBeCloseTo(lp([1.5, 0.5, 1.5], [1, 2, 3]), 10);
  });

  it.each([
    ["random draws in transformed data", "transformed data { real z = normal_rng(0, 1); }\nparameters { real mu; }", "t.stan:1:29: not supported: random draws ('normal_rng') outside generated quantities are not supported yet"],
    ["an algebraic solver", `${HEAD}model { target += algebra_solver(mu, sigma); }`, "t.stan:3:19: not supported: the function 'algebra_solver' is not supported yet"],
    ["a loop condition on a parameter", "data { int N; array[N] int k; }\nparameters { real mu; }\nmodel { while (mu > k[1]) mu ~ normal(0, 1); }", "t.stan:3:16: not supported: a while loop's condition must be known before sampling (from data, transformed data or a loop index), but it depends on parameters"],
    ["the density changed under a parameter's condition", `${HEAD}model { if (mu > 0) target += mu; }`, "t.stan:3:21: not supported: a change of the log density under the condition at line 3"],
    ["a data size given by an expression", "data { int N; vector[N - 1] x; }\nparameters { real mu; }", "t.stan:1:22: not supported: a data variable's size must be a number or the name of an int data variable"],
  ])("refuses %s, naming it and its line", (_, text, message) => {
    refused(text, { ...DATA, N: text.includes("array[N] int k") ? 2 : DATA.N, k: [2, 3] }, message);
  });

  it("refuses a loop that cannot run vectorized once its trace grows too long, naming the loop and why", () => {
    const text = `data { int N; vector[N] y; }
parameters { real mu; }
model {
  vector[N] m;
  m[1] = mu;
  for (n in 2:N) {
    vector[2] g;
    g[1] = normal_lpdf(y[n] | m[n - 1], 1);
    g[2] = normal_lpdf(y[n] | -m[n - 1], 1);
    m[n] = 0.5 * m[n - 1];
    target += log_sum_exp(g);
  }
}`;
    const N = 4000;
    refused(text, { N, y: Array.from({ length: N }, (_, i) => Math.sin(i)) }, "t.stan:6:3: not supported: a loop traced one iteration at a time into more than 50000 graph nodes (it cannot run vectorized: it declares the local container 'g')");
  });

  it("errors are StanErrors with their position", () => {
    expect(() => compileStan("model { target += ; }", "e.stan")).toThrow(StanError);
  });
});

// erf by its series (enough digits for the test's tolerance).
function erf(x: number): number {
  let sum = 0;
  let term = x;
  for (let n = 0; n < 60; n++) {
    sum += term / (2 * n + 1);
    term *= (-x * x) / (n + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}
