import type { BinaryOp, Bounds, DeclType, Expr, FunDef, FunType, Index, Program, Stmt } from "./ast.ts";

/** Binding strength of each binary operator (higher binds tighter), as the parser's levels. */
const STRENGTH: Readonly<Record<BinaryOp, number>> = {
  "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5,
  "*": 6, "/": 6, "%": 6, ".*": 6, "./": 6, "\\": 7, "%/%": 7, "^": 9, ".^": 9,
};
const UNARY = 8;
const POSTFIX = 10;

function strength(e: Expr): number {
  switch (e.kind) {
    case "cond": return 0;
    case "binary": return STRENGTH[e.op];
    case "unary": return UNARY;
    default: return POSTFIX;
  }
}

/** Prints an expression as Stan source, with the parentheses its tree needs and no others (besides its own paren nodes). */
export function printExpr(e: Expr): string {
  switch (e.kind) {
    case "int":
    case "real":
    case "imag": return e.text;
    case "string": return `"${e.value}"`;
    case "var": return e.name;
    case "paren": return `(${printExpr(e.inner)})`;
    case "array": return `{${e.elements.map(printExpr).join(", ")}}`;
    case "rowvector": return `[${e.elements.map(printExpr).join(", ")}]`;
    case "call": {
      if (!e.conditional) return `${e.name}(${e.args.map(printExpr).join(", ")})`;
      const [first, ...rest] = e.args;
      return `${e.name}(${printExpr(first!)} | ${rest.map(printExpr).join(", ")})`;
    }
    case "index": return `${wrap(e.target, POSTFIX)}[${e.indices.map(printIndex).join(", ")}]`;
    case "transpose": return `${wrap(e.operand, POSTFIX)}'`;
    case "unary": return `${e.op}${wrap(e.operand, UNARY)}`;
    case "cond": return `${wrap(e.test, 1)} ? ${printExpr(e.then)} : ${printExpr(e.else)}`;
    case "binary": {
      const s = STRENGTH[e.op];
      // Left-associative levels keep a left operand of the same level bare; ^ is right-associative.
      const right = e.op === "^" || e.op === ".^";
      const l = right ? wrap(e.left, POSTFIX) : wrap(e.left, s);
      const r = right ? wrap(e.right, UNARY) : wrap(e.right, s + 1);
      return `${l} ${e.op} ${r}`;
    }
  }
}

function wrap(e: Expr, min: number): string {
  return strength(e) >= min ? printExpr(e) : `(${printExpr(e)})`;
}

function printIndex(i: Index): string {
  if (i.kind === "single") return printExpr(i.expr);
  return `${i.lower ? printExpr(i.lower) : ""}:${i.upper ? printExpr(i.upper) : ""}`;
}

function printBounds(b: Bounds): string {
  if (b.kind === "none") return "";
  const parts = b.kind === "range"
    ? [b.lower && `lower=${printExpr(b.lower)}`, b.upper && `upper=${printExpr(b.upper)}`]
    : [b.offset && `offset=${printExpr(b.offset)}`, b.multiplier && `multiplier=${printExpr(b.multiplier)}`];
  return `<${parts.filter((p) => p !== undefined).join(", ")}>`;
}

/** Prints a declared type in the new array syntax: array[N] vector<lower=0>[K]. */
export function printDeclType(t: DeclType): string {
  const arr = t.arrayDims.length > 0 ? `array[${t.arrayDims.map(printExpr).join(", ")}] ` : "";
  const sizes = t.sizes.length > 0 ? `[${t.sizes.map(printExpr).join(", ")}]` : "";
  return `${arr}${t.base}${printBounds(t.bounds)}${sizes}`;
}

/** Prints a statement, indented by `indent` spaces. */
export function printStmt(s: Stmt, indent = 0): string {
  const pad = " ".repeat(indent);
  switch (s.kind) {
    case "decl": return `${pad}${printDeclType(s.type)} ${s.name}${s.init ? ` = ${printExpr(s.init)}` : ""};`;
    case "assign": {
      const idx = s.target.indices.map((l) => `[${l.map(printIndex).join(", ")}]`).join("");
      return `${pad}${s.target.name}${idx} ${s.op} ${printExpr(s.value)};`;
    }
    case "tilde": {
      const t = s.truncation ? ` T[${s.truncation.lower ? printExpr(s.truncation.lower) : ""}, ${s.truncation.upper ? printExpr(s.truncation.upper) : ""}]` : "";
      return `${pad}${printExpr(s.value)} ~ ${s.dist}(${s.args.map(printExpr).join(", ")})${t};`;
    }
    case "target": return `${pad}target += ${printExpr(s.value)};`;
    case "for": return `${pad}for (${s.variable} in ${printExpr(s.lower)}:${printExpr(s.upper)})\n${printStmt(s.body, indent + 2)}`;
    case "foreach": return `${pad}for (${s.variable} in ${printExpr(s.collection)})\n${printStmt(s.body, indent + 2)}`;
    case "while": return `${pad}while (${printExpr(s.test)})\n${printStmt(s.body, indent + 2)}`;
    case "if": {
      const head = `${pad}if (${printExpr(s.test)})\n${printStmt(blockOf(s.then), indent + 2)}`;
      return s.else ? `${head}\n${pad}else\n${printStmt(s.else, indent + 2)}` : head;
    }
    case "break":
    case "continue": return `${pad}${s.kind};`;
    case "return": return `${pad}return${s.value ? ` ${printExpr(s.value)}` : ""};`;
    case "print":
    case "reject":
    case "fatal_error": return `${pad}${s.kind}(${s.args.map(printExpr).join(", ")});`;
    case "call": return `${pad}${printExpr(s.call)};`;
    case "block": return `${pad}{\n${s.body.map((b) => printStmt(b, indent + 2)).join("\n")}\n${pad}}`;
    case "profile": return `${pad}profile("${s.label}") {\n${s.body.map((b) => printStmt(b, indent + 2)).join("\n")}\n${pad}}`;
    case "empty": return `${pad};`;
  }
}

// A then-branch that is itself an if without else is braced, so that a following else stays with the outer if.
function blockOf(s: Stmt): Stmt {
  return s.kind === "if" ? { kind: "block", body: [s], span: s.span } : s;
}

function printFunType(t: FunType): string {
  const arr = t.arrayDims > 0 ? `array[${",".repeat(t.arrayDims - 1)}] ` : "";
  return `${t.dataOnly ? "data " : ""}${arr}${t.base}`;
}

function printFunDef(f: FunDef): string {
  const head = `  ${printFunType(f.returnType)} ${f.name}(${f.args.map((a) => `${printFunType(a.type)} ${a.name}`).join(", ")})`;
  return f.body ? `${head}\n${printStmt(f.body, 2)}` : `${head};`;
}

/** Prints a program as Stan source (new array syntax; comments are not kept). */
export function printProgram(p: Program): string {
  const out: string[] = [];
  if (p.functions.length > 0 || p.blockSpans.functions) out.push(`functions {\n${p.functions.map(printFunDef).join("\n")}\n}`);
  for (const [name, body] of Object.entries(p.blocks)) {
    out.push(`${name} {\n${(body ?? []).map((s) => printStmt(s, 2)).join("\n")}\n}`);
  }
  return out.join("\n") + "\n";
}
