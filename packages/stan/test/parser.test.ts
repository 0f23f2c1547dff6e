import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseStan, parseStanExpression } from "../src/syntax/parser.ts";
import { printExpr, printProgram } from "../src/syntax/printer.ts";
import type { Expr } from "../src/syntax/ast.ts";

// The tree of an expression with every binary and unary operation parenthesised: precedence made visible.
function shape(e: Expr): string {
  switch (e.kind) {
    case "binary": return `(${shape(e.left)} ${e.op} ${shape(e.right)})`;
    case "unary": return `(${e.op}${shape(e.operand)})`;
    case "transpose": return `${shape(e.operand)}'`;
    case "cond": return `(${shape(e.test)} ? ${shape(e.then)} : ${shape(e.else)})`;
    case "paren": return shape(e.inner);
    case "index": return `${shape(e.target)}[${e.indices.map((i) => (i.kind === "single" ? shape(i.expr) : `${i.lower ? shape(i.lower) : ""}:${i.upper ? shape(i.upper) : ""}`)).join(",")}]`;
    case "call": {
      const args = e.args.map(shape);
      return e.conditional ? `${e.name}(${args[0]} | ${args.slice(1).join(", ")})` : `${e.name}(${args.join(", ")})`;
    }
    default: return printExpr(e);
  }
}
const tree = (s: string) => shape(parseStanExpression(s));

describe("expressions follow Stan's precedence", () => {
  it.each([
    ["a + b * c", "(a + (b * c))"],
    ["a - b - c", "((a - b) - c)"],
    ["a * b \\ c", "(a * (b \\ c))"],
    ["a .* b ./ c", "((a .* b) ./ c)"],
    ["a * b .* c", "((a * b) .* c)"],
    ["a %/% b * c", "((a %/% b) * c)"],
    ["-a ^ b", "(-(a ^ b))"],
    ["a ^ b ^ c", "(a ^ (b ^ c))"],
    ["a ^ -b", "(a ^ (-b))"],
    ["-x'", "(-x')"],
    ["x' * y", "(x' * y)"],
    ["a < b && c >= d || !e", "(((a < b) && (c >= d)) || (!e))"],
    ["a == b != c", "((a == b) != c)"],
    ["a ? b : c ? d : e", "(a ? b : (c ? d : e))"],
    ["a || b ? c + 1 : d", "((a || b) ? (c + 1) : d)"],
    ["x[i, 2:N][1]", "x[i,2:N][1]"],
    ["x[:, j]", "x[:,j]"],
    ["x[2:]", "x[2:]"],
    ["normal_lpdf(y | mu, s)", "normal_lpdf(y | mu, s)"],
    ["(a + b) * c", "((a + b) * c)"],
    ["a % b / c", "((a % b) / c)"],
  ])("%s", (src, want) => {
    expect(tree(src)).toBe(want);
  });

  it("gives every node a position", () => {
    const e = parseStanExpression("1 +\n  foo(x[2])");
    expect(e.span.start).toMatchObject({ line: 1, column: 1 });
    if (e.kind !== "binary" || e.right.kind !== "call") throw new Error("expected a binary node with a call on its right");
    expect(e.right.span.start).toMatchObject({ line: 2, column: 3 });
    expect(e.right.args[0]!.span.start).toMatchObject({ line: 2, column: 7 });
  });
});

describe("programs", () => {
  it("reads every block, constrained types and both array syntaxes", () => {
    const p = parseStan(`
functions {
  real twice(real x) { return 2 * x; }
  real my_lpdf(vector y, real mu) { return normal_lpdf(y | mu, 1); }
  void hello(data array[] int n, real[] old);
}
data {
  int<lower=0> N;
  array[N] real<lower=0, upper=1> p;
  real y[N, 2];
  vector<offset=1, multiplier=2>[N] z;
  matrix<lower=-1>[N, N] M;
}
transformed data { int K = N %/% 2; }
parameters {
  simplex[3] s; unit_vector[2] u; sum_to_zero_vector[4] z0; ordered[2] o; positive_ordered[2] po;
  cholesky_factor_corr[3] Lc; cholesky_factor_cov[4, 3] Lv; corr_matrix[3] R; cov_matrix[3] S;
  real<lower=0, upper=(1 - o[1])> b;
}
transformed parameters { real t = b * 2; }
model {
  real acc = 0;
  for (n in 1:N) { if (n > 2) continue; else if (n < 0) break; acc += p[n]; }
  for (x in p) acc *= x;
  while (acc > 10) acc /= 2;
  y[1, 1] ~ normal(0, 1) T[0, ];
  y[1, 2] ~ normal(0, 1) T[, 2];
  target += my_lpdf(z | 0);
  print("acc = ", acc);
  if (acc < 0) reject("negative ", acc);
  profile("lik") { target += -0.5 * dot_self(z); }
}
generated quantities { real r = normal_rng(0, 1); }
`);
    expect(p.functions.map((f) => f.name)).toEqual(["twice", "my_lpdf", "hello"]);
    expect(p.functions[2]!.args[1]!.type.arrayDims).toBe(1);
    expect(Object.keys(p.blocks)).toEqual(["data", "transformed data", "parameters", "transformed parameters", "model", "generated quantities"]);
    const y = p.blocks.data![2]!;
    expect(y.kind === "decl" && y.type.arrayDims.length).toBe(2);
    const lv = p.blocks.parameters!.find((s) => s.kind === "decl" && s.name === "Lv");
    expect(lv?.kind === "decl" && lv.type.sizes.length).toBe(2);
  });

  it("parses every program of the reference sets and the corpus", () => {
    let n = 0;
    for (const set of ["posteriordb", "posteriordb-ode", "stan-corpus"]) {
      const root = new URL(`../../../../shared/${set}/`, import.meta.url);
      for (const d of readdirSync(root, { withFileTypes: true })) {
        if (!d.isDirectory()) continue;
        const file = new URL(`${d.name}/model.stan`, root);
        const p = parseStan(readFileSync(file, "utf8"), d.name);
        // Printing and parsing again gives the same program.
        expect(printProgram(parseStan(printProgram(p)))).toBe(printProgram(p));
        n++;
      }
    }
    expect(n).toBe(53);
  });
});
