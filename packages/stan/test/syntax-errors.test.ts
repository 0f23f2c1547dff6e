import { describe, expect, it } from "vitest";
import { parseStan } from "../src/syntax/parser.ts";
import { StanError } from "../src/syntax/source.ts";

// Invalid programs and the message each gives: file:line:column, what was found, what was expected.
const CASES: readonly [string, string, string][] = [
  ["missing semicolon", "data {\n  int N\n}\n", "bad.stan:3:1: syntax error: found '}', expected ';' after the declaration"],
  ["blocks out of order", "model { }\ndata { }\n", "bad.stan:2:1: syntax error: found the 'data' block after the 'model' block; the blocks come once each, in the order functions, data, transformed data, parameters, transformed parameters, model, generated quantities"],
  ["a block twice", "model { }\nmodel { }\n", "bad.stan:2:1: syntax error: found a second 'model' block"],
  ["statement in data", "data {\n  int N;\n  N = 3;\n}\n", "bad.stan:3:3: syntax error: found 'N', expected a variable declaration: the 'data' block holds declarations only"],
  ["unknown block", "modle { }\n", "bad.stan:1:1: syntax error: found 'modle', expected a block name"],
  ["transformed without data", "transformed stuff { }\n", "bad.stan:1:13: syntax error: found 'stuff', expected 'data' or 'parameters' after 'transformed'"],
  ["unclosed parenthesis", "model {\n  target += (1 + 2;\n}\n", "bad.stan:2:19: syntax error: found ';', expected ')' to close the parenthesis"],
  ["expression alone", "model {\n  1 + 2;\n}\n", "bad.stan:2:8: syntax error: found ';', expected '=', '~', or another assignment operator"],
  ["bounds on a local", "model {\n  real<lower=0> x;\n}\n", "bad.stan:2:7: syntax error: found '<': local variables take no bounds"],
  ["bounds on simplex", "parameters {\n  simplex<lower=0>[3] s;\n}\n", "bad.stan:2:10: syntax error: found '<': the type simplex takes no bounds"],
  ["matrix with one size", "data {\n  matrix[3] m;\n}\n", "bad.stan:2:3: syntax error: matrix takes 2 sizes in brackets, found 1"],
  ["mixed bounds", "parameters {\n  real<lower=0, offset=1> x;\n}\n", "bad.stan:2:26: syntax error: bounds mix lower/upper with offset/multiplier; give one kind"],
  ["reserved name", "data {\n  int for;\n}\n", "bad.stan:2:7: syntax error: 'for' is a reserved word"],
  ["old assignment", "model {\n  real x;\n  x <- 1;\n}\n", "bad.stan:3:5: syntax error: the assignment '<-' was removed from Stan; write '='"],
  ["increment_log_prob", "model {\n  increment_log_prob(1);\n}\n", "bad.stan:2:3: syntax error: increment_log_prob(...) was removed from Stan; write target += ...;"],
  ["bar in a plain call", "model {\n  target += foo(1 | 2);\n}\n", "bad.stan:2:19: syntax error: found '|': only a _lpdf, _lpmf, _cdf, _lcdf or _lccdf call takes its outcome before '|'"],
  ["unclosed comment", "model {\n  /* open\n}\n", "bad.stan:2:3: syntax error: the comment opened here is never closed"],
  ["bad character", "model {\n  target += 1 @ 2;\n}\n", "bad.stan:2:15: syntax error: unexpected character '@'"],
  ["truncation without comma", "model {\n  y ~ normal(0, 1) T[0];\n}\n", "bad.stan:2:23: syntax error: found ']', expected ',' in the truncation T[lower, upper]"],
  ["for without in", "model {\n  for (i = 1:3) { }\n}\n", "bad.stan:2:10: syntax error: found '=', expected 'in' after the loop variable"],
  ["end of file", "model {\n  target += 1;\n", "bad.stan:3:1: syntax error: found the end of the file, expected '}' to close the 'model' block"],
  ["comparison in bounds", "data {\n  real<lower=a > b> x;\n}\n", "bad.stan:2:19: syntax error: found '>', expected ';' after the declaration"],
];

describe("syntax errors name the place, the token found and what was expected", () => {
  it.each(CASES)("%s", (_, program, message) => {
    let caught: unknown;
    try {
      parseStan(program, "bad.stan");
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(StanError);
    expect((caught as StanError).message).toContain(message);
    expect((caught as StanError).excerpt).toMatch(/\^$/);
  });
});
