import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BinaryOp, Expr, Stmt } from "../src/syntax/ast.ts";
import { parseStan, parseStanExpression } from "../src/syntax/parser.ts";
import { printExpr, printProgram, printStmt } from "../src/syntax/printer.ts";
import type { Span } from "../src/syntax/source.ts";

const at = { line: 1, column: 1, offset: 0 };
const span: Span = { start: at, end: at };
const OPS: BinaryOp[] = ["||", "&&", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "%/%", "\\", ".*", "./", "^", ".^"];

// Generated expression trees (no paren nodes: the printer must add exactly the parentheses the tree needs).
const { expr } = fc.letrec<{ expr: Expr; leaf: Expr }>((tie) => ({
  leaf: fc.oneof(
    fc.constantFrom("a", "b", "mu", "sigma_2").map((name): Expr => ({ kind: "var", name, span })),
    fc.nat(1000).map((v): Expr => ({ kind: "int", value: v, text: String(v), span })),
    fc.constantFrom("0.5", "1e-3", "2.25E4").map((text): Expr => ({ kind: "real", value: Number(text), text, span })),
  ),
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("leaf"),
    fc.tuple(fc.constantFrom(...OPS), tie("expr"), tie("expr")).map(([op, left, right]): Expr => ({ kind: "binary", op, left, right, span })),
    fc.tuple(fc.constantFrom("-" as const, "+" as const, "!" as const), tie("expr")).map(([op, operand]): Expr => ({ kind: "unary", op, operand, span })),
    tie("expr").map((operand): Expr => ({ kind: "transpose", operand, span })),
    fc.tuple(tie("expr"), tie("expr"), tie("expr")).map(([test, then, otherwise]): Expr => ({ kind: "cond", test, then, else: otherwise, span })),
    fc.tuple(tie("expr"), fc.array(tie("expr"), { minLength: 1, maxLength: 2 })).map(([target, idx]): Expr => ({
      kind: "index", target, indices: idx.map((e) => ({ kind: "single" as const, expr: e, span })), span,
    })),
    fc.tuple(fc.constantFrom("foo", "normal_lpdf"), fc.array(tie("expr"), { minLength: 1, maxLength: 3 })).map(([name, args]): Expr => ({
      kind: "call", name, args, conditional: name.endsWith("_lpdf"), span,
    })),
  ),
}));

// The tree without positions and parentheses (the printer adds those the tree needs), for comparison.
function strip(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(strip);
  if (typeof x === "object" && x !== null) {
    if ((x as { kind?: string }).kind === "paren") return strip((x as { inner: unknown }).inner);
    return Object.fromEntries(Object.entries(x).filter(([k]) => k !== "span" && k !== "nameSpan" && k !== "distSpan").map(([k, v]) => [k, strip(v)]));
  }
  return x;
}

const stmt: fc.Arbitrary<Stmt> = fc.oneof(
  fc.tuple(expr, expr).map(([value, mu]): Stmt => ({ kind: "tilde", value, dist: "normal", distSpan: span, args: [mu, { kind: "int", value: 1, text: "1", span }], truncation: undefined, span })),
  expr.map((value): Stmt => ({ kind: "target", value, span })),
  fc.tuple(fc.constantFrom("=" as const, "+=" as const, ".*=" as const), expr).map(([op, value]): Stmt => ({
    kind: "assign", op, value, target: { name: "x", indices: [[{ kind: "single", expr: { kind: "var", name: "i", span }, span }]], span }, span,
  })),
  fc.tuple(expr, expr).map(([lower, upper]): Stmt => ({ kind: "for", variable: "i", lower, upper, body: { kind: "target", value: lower, span }, span })),
  fc.tuple(expr, expr).map(([test, v]): Stmt => ({ kind: "if", test, then: { kind: "target", value: v, span }, else: { kind: "break", span }, span })),
);

describe("print then parse gives the same tree", () => {
  it("for generated expressions", () => {
    fc.assert(fc.property(expr, (e) => {
      expect(strip(parseStanExpression(printExpr(e)))).toEqual(strip(e));
    }), { seed: 20261207, numRuns: 400 });
  });

  it("for generated model blocks", () => {
    fc.assert(fc.property(fc.array(stmt, { minLength: 1, maxLength: 4 }), (body) => {
      const text = `model {\n${body.map((s) => printStmt(s, 2)).join("\n")}\n}\n`;
      const parsed = parseStan(text);
      expect(strip(parsed.blocks.model)).toEqual(strip(body));
      expect(printProgram(parsed)).toBe(text);
    }), { seed: 7, numRuns: 150 });
  });
});
