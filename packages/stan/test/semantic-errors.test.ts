import { describe, expect, it } from "vitest";
import { checkStan } from "../src/check/check.ts";
import { parseStan } from "../src/syntax/parser.ts";
import { SourceFile, StanError } from "../src/syntax/source.ts";

const check = (text: string) => checkStan(parseStan(text, "bad.stan"), new SourceFile(text, "bad.stan"));

// Programs that parse but are wrong, and the message each gives before anything runs.
const CASES: readonly [string, string, string][] = [
  ["undefined name", "parameters { real mu; }\nmodel {\n  mu ~ normal(nu, 1);\n}\n", "bad.stan:3:15: semantic error: 'nu' is not declared"],
  ["assignment to data", "data { real y; }\nparameters { real mu; }\nmodel {\n  y = 2;\n}\n", "bad.stan:4:3: semantic error: cannot assign to 'y': it is declared in the 'data' block and cannot be changed in the 'model' block"],
  ["assignment to a parameter", "parameters { real mu; }\nmodel {\n  mu = 1;\n}\n", "bad.stan:3:3: semantic error: cannot assign to 'mu': it is declared in the 'parameters' block"],
  ["assignment to a loop variable", "model {\n  for (i in 1:3) i = 2;\n}\n", "bad.stan:2:18: semantic error: cannot assign to 'i': it is a loop variable"],
  ["target outside model", "parameters { real mu; }\ntransformed parameters {\n  real t = mu;\n  target += mu;\n}\n", "bad.stan:4:3: semantic error: the log density (target += or ~) can be changed only in the model block"],
  ["rng in the model", "parameters { real mu; }\nmodel {\n  real z = normal_rng(0, 1);\n}\n", "bad.stan:3:12: semantic error: 'normal_rng' draws random numbers, allowed only in transformed data, generated quantities"],
  ["int parameter", "parameters {\n  int k;\n}\n", "bad.stan:2:3: semantic error: parameter 'k' is an int"],
  ["vector to real", "parameters { vector[3] v; }\nmodel {\n  real x;\n  x = v;\n}\n", "bad.stan:4:7: semantic error: cannot assign vector to 'x', which is real"],
  ["real to int", "model {\n  int k;\n  k = 2.5;\n}\n", "bad.stan:3:7: semantic error: cannot assign real to 'k', which is int"],
  ["vector times vector", "parameters { vector[3] v; }\nmodel {\n  target += sum(v * v);\n}\n", "bad.stan:3:17: semantic error: '*': cannot multiply vector and vector (use .* for elementwise products)"],
  ["real loop bound", "model {\n  for (i in 1:2.5) { }\n}\n", "bad.stan:2:15: semantic error: a loop bound must be an int, found real"],
  ["real size", "data { real n; }\nparameters { vector[n] v; }\n", "bad.stan:2:21: semantic error: a size must be an int, found real"],
  ["too many indices", "parameters { vector[3] v; }\nmodel {\n  target += v[1, 2];\n}\n", "bad.stan:3:13: semantic error: too many indices for vector"],
  ["unknown distribution", "parameters { real mu; }\nmodel {\n  mu ~ nromal(0, 1);\n}\n", "bad.stan:3:8: semantic error: unknown distribution 'nromal'"],
  ["wrong arity", "parameters { real mu; }\nmodel {\n  mu ~ normal(0);\n}\n", "bad.stan:3:8: semantic error: 'normal' takes 2 arguments after the outcome, found 1"],
  ["unknown function", "parameters { real mu; }\nmodel {\n  target += foo(mu);\n}\n", "bad.stan:3:13: semantic error: unknown function 'foo'"],
  ["declared twice", "data { int N; }\nparameters { real N; }\n", "bad.stan:2:19: semantic error: 'N' is already declared (line 1)"],
  ["break outside a loop", "model {\n  break;\n}\n", "bad.stan:2:3: semantic error: 'break' outside a loop"],
  ["return type", "functions {\n  real f(real x) { return {x}; }\n}\n", "bad.stan:2:27: semantic error: function 'f' returns real, but this value is array[] real"],
  ["a bound of the wrong type", "data { vector[2] b; }\nparameters { real<lower=b> x; }\n", "bad.stan:2:25: semantic error: a bound must be a scalar or of the declared type real, found vector"],
  ["condition on a vector", "parameters { vector[2] v; }\nmodel {\n  if (v) target += 1;\n}\n", "bad.stan:3:7: semantic error: a condition must be an int or real, found vector"],
  ["data argument given a parameter", "functions {\n  real f(data real x) { return x; }\n}\nparameters { real mu; }\nmodel {\n  target += f(mu);\n}\n", "bad.stan:6:15: semantic error: argument 1 of 'f' must be data, but depends on parameters"],
  ["a value for data", "data {\n  real x = 1;\n}\n", "bad.stan:2:12: semantic error: a variable of the 'data' block cannot be given a value"],
  ["lpdf without bar", "parameters { real mu; }\nmodel {\n  target += normal_lpdf(mu, 0, 1);\n}\n", "bad.stan:3:13: semantic error: 'normal_lpdf' takes its outcome before '|'"],
];

describe("semantic errors are found before anything runs, with their place", () => {
  it.each(CASES)("%s", (_, program, message) => {
    let caught: unknown;
    try {
      check(program);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(StanError);
    expect((caught as StanError).message).toContain(message);
  });

  it("accepts a program that uses every block", () => {
    const c = check(`
functions { real twice(real x) { return 2 * x; } }
data { int N; vector[N] y; }
transformed data { real m = mean(y); }
parameters { real mu; real<lower=0> sigma; }
transformed parameters { real mu2 = twice(mu); }
model { y ~ normal(mu, sigma); }
generated quantities { real y_rep = normal_rng(mu, sigma); }
`);
    expect(c.functions.has("twice")).toBe(true);
  });
});
