import type {
  AssignOp, BaseKind, BinaryOp, BlockName, Bounds, DeclType, Expr, FunDef, FunType, Index, LValue, Program, Stmt, VarDecl,
} from "./ast.ts";
import { tokenize, type Token } from "./lexer.ts";
import { SourceFile, type Position, type Span } from "./source.ts";

/** Parses a Stan program (grammar: docs/stan-grammar.md); throws a StanError at the first syntax error. */
export function parseStan(text: string, fileName = "model.stan"): Program {
  const src = new SourceFile(text, fileName);
  return new Parser(src, tokenize(src)).program();
}

/** Parses one Stan expression (for tests and tools). */
export function parseStanExpression(text: string, fileName = "expression"): Expr {
  const src = new SourceFile(text, fileName);
  const p = new Parser(src, tokenize(src));
  const e = p.expression();
  p.expectEnd();
  return e;
}

const BLOCKS: readonly BlockName[] = ["functions", "data", "transformed data", "parameters", "transformed parameters", "model", "generated quantities"];

/** Keywords that start a variable declaration (the types; `array` for the new array syntax). */
const TYPE_WORDS = new Set<string>([
  "int", "real", "complex", "vector", "row_vector", "matrix", "complex_vector", "complex_row_vector", "complex_matrix",
  "simplex", "unit_vector", "sum_to_zero_vector", "ordered", "positive_ordered", "cholesky_factor_corr", "cholesky_factor_cov",
  "corr_matrix", "cov_matrix", "column_stochastic_matrix", "row_stochastic_matrix", "sum_to_zero_matrix", "array",
]);

/** How many sizes each base type takes in brackets (cholesky_factor_cov takes one or two). */
const SIZES: Readonly<Record<BaseKind, number>> = {
  int: 0, real: 0, complex: 0, vector: 1, row_vector: 1, matrix: 2, complex_vector: 1, complex_row_vector: 1, complex_matrix: 2,
  simplex: 1, unit_vector: 1, sum_to_zero_vector: 1, ordered: 1, positive_ordered: 1, cholesky_factor_corr: 1,
  cholesky_factor_cov: 2, corr_matrix: 1, cov_matrix: 1, column_stochastic_matrix: 2, row_stochastic_matrix: 2, sum_to_zero_matrix: 2,
};

/** Types that take <lower, upper> or <offset, multiplier>. */
const BOUNDABLE = new Set<BaseKind>(["int", "real", "vector", "row_vector", "matrix"]);

const ASSIGN_OPS = new Set<string>(["=", "+=", "-=", "*=", "/=", ".*=", "./="]);

/** Binary operators by precedence level, lowest first (stanc3's table); each level is left-associative. */
const LEVELS: readonly (readonly BinaryOp[])[] = [
  ["||"], ["&&"], ["==", "!="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%", ".*", "./"], ["\\", "%/%"],
];
/** The level of + and -: bounds in <...> are parsed from here, so that > closes them. */
const ADDITIVE = 4;

const RESERVED = new Set<string>([
  "for", "in", "while", "if", "else", "target", "functions", "model", "data", "parameters", "quantities", "transformed",
  "generated", "profile", "return", "break", "continue", "print", "reject", "fatal_error", "void", "tuple", ...TYPE_WORDS,
]);

class Parser {
  private pos = 0;
  constructor(private readonly src: SourceFile, private readonly tokens: readonly Token[]) {}

  // ------------------------------------------------------------ tokens

  private peek(k = 0): Token {
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)]!;
  }
  private next(): Token {
    const t = this.peek();
    if (t.kind !== "eof") this.pos++;
    return t;
  }
  private at(text: string, k = 0): boolean {
    const t = this.peek(k);
    return (t.kind === "op" || t.kind === "ident") && t.text === text;
  }
  private eat(text: string): boolean {
    if (!this.at(text)) return false;
    this.pos++;
    return true;
  }
  private expect(text: string, context: string): Token {
    if (this.at(text)) return this.next();
    throw this.fail(`'${text}' ${context}`);
  }
  private ident(context: string): Token {
    const t = this.peek();
    if (t.kind !== "ident") throw this.fail(`an identifier ${context}`);
    if (RESERVED.has(t.text)) throw this.src.error("syntax", t.start, `'${t.text}' is a reserved word and cannot name ${context.replace(/^(as|for) /, "")}`);
    return this.next();
  }
  private last(): Position {
    return this.tokens[Math.max(0, this.pos - 1)]!.end;
  }
  private span(start: Position): Span {
    return { start, end: this.last() };
  }
  /** A syntax error at the current token: what was found and what was expected. */
  fail(expected: string): Error {
    const t = this.peek();
    const found = t.kind === "eof" ? "the end of the file" : t.kind === "string" ? `the string ${t.text}` : `'${t.text}'`;
    return this.src.error("syntax", t.start, `found ${found}, expected ${expected}`);
  }
  expectEnd(): void {
    if (this.peek().kind !== "eof") throw this.fail("the end of the input");
  }

  // ------------------------------------------------------------ program and blocks

  program(): Program {
    const blocks: Partial<Record<Exclude<BlockName, "functions">, Stmt[]>> = {};
    const blockSpans: Partial<Record<BlockName, Span>> = {};
    let functions: FunDef[] = [];
    let lastIndex = -1;
    while (this.peek().kind !== "eof") {
      const start = this.peek().start;
      const name = this.blockName();
      const index = BLOCKS.indexOf(name);
      if (index <= lastIndex) {
        const what = index === lastIndex ? `a second '${name}' block` : `the '${name}' block after the '${BLOCKS[lastIndex]}' block`;
        throw this.src.error("syntax", start, `found ${what}; the blocks come once each, in the order ${BLOCKS.join(", ")}`);
      }
      lastIndex = index;
      this.expect("{", `to open the '${name}' block`);
      if (name === "functions") functions = this.functionDefs();
      else blocks[name] = this.blockBody(name);
      this.expect("}", `to close the '${name}' block`);
      blockSpans[name] = this.span(start);
    }
    return { functions, blocks, blockSpans };
  }

  private blockName(): BlockName {
    const t = this.peek();
    for (const name of BLOCKS) {
      const words = name.split(" ");
      if (words.every((w, k) => this.peek(k).kind === "ident" && this.peek(k).text === w)) {
        this.pos += words.length;
        return name;
      }
    }
    if (t.text === "transformed" || t.text === "generated") {
      this.pos++;
      throw this.fail(t.text === "generated" ? "'quantities' after 'generated'" : "'data' or 'parameters' after 'transformed'");
    }
    throw this.fail(`a block name (${BLOCKS.join(", ")})`);
  }

  private blockBody(name: BlockName): Stmt[] {
    const out: Stmt[] = [];
    const declOnly = name === "data" || name === "parameters";
    while (!this.at("}") && this.peek().kind !== "eof") {
      if (this.isDeclStart()) out.push(...this.varDecls(name !== "model"));
      else if (declOnly) throw this.fail(`a variable declaration: the '${name}' block holds declarations only`);
      else out.push(this.statement());
    }
    return out;
  }

  private isDeclStart(): boolean {
    const t = this.peek();
    if (t.kind !== "ident" || !TYPE_WORDS.has(t.text)) return false;
    // `array` and the type words are reserved; a type word followed by '(' is a call of a
    // function named like it (int_step is not, but a few are: e.g. matrix_exp is one token).
    return !this.at("(", 1);
  }

  // ------------------------------------------------------------ declarations

  /** One declaration statement (it may declare several names: real a, b = 1;). */
  private varDecls(topLevel: boolean): VarDecl[] {
    const start = this.peek().start;
    let arrayDims: Expr[] = [];
    if (this.eat("array")) {
      this.expect("[", "after 'array' (array[N] real x;)");
      arrayDims = this.exprList("]", "an array size");
    }
    const type = this.declType(start, arrayDims, topLevel);
    const out: VarDecl[] = [];
    do {
      const name = this.ident("as the name of the declared variable");
      let t = type;
      if (this.at("[")) {
        // Old array syntax: real y[N]; (removed in Stan 2.33, still read here).
        if (arrayDims.length > 0) throw this.fail("';' or '=': an array declared with array[...] takes no sizes after its name");
        this.next();
        t = { ...type, arrayDims: this.exprList("]", "an array size") };
      }
      const init = this.eat("=") ? this.expression() : undefined;
      out.push({ kind: "decl", type: t, name: name.text, nameSpan: { start: name.start, end: name.end }, init, span: this.span(start) });
    } while (this.eat(","));
    this.expect(";", "after the declaration");
    return out;
  }

  private declType(start: Position, arrayDims: Expr[], topLevel: boolean): DeclType {
    const t = this.peek();
    if (t.kind !== "ident" || !TYPE_WORDS.has(t.text) || t.text === "array") throw this.fail("a type (int, real, vector[N], matrix[N, M], simplex[K], …)");
    this.next();
    const base = t.text as BaseKind;
    let bounds: Bounds = { kind: "none" };
    if (this.at("<")) {
      if (!BOUNDABLE.has(base)) throw this.src.error("syntax", this.peek().start, `found '<': the type ${base} takes no bounds`);
      if (!topLevel) throw this.src.error("syntax", this.peek().start, "found '<': local variables take no bounds; declare the variable without them");
      bounds = this.bounds(base);
    }
    const sizes: Expr[] = [];
    const want = SIZES[base];
    if (want > 0) {
      this.expect("[", `after '${base}' to give its size${want > 1 ? "s" : ""}`);
      sizes.push(...this.exprList("]", "a size"));
      const ok = sizes.length === want || (base === "cholesky_factor_cov" && sizes.length === 1);
      if (!ok) throw this.src.error("syntax", t.start, `${base} takes ${want} size${want > 1 ? "s" : ""} in brackets, found ${sizes.length}`);
    }
    return { base, bounds, sizes, arrayDims, span: this.span(start) };
  }

  private bounds(base: BaseKind): Bounds {
    this.expect("<", "");
    const seen = new Map<string, Expr>();
    do {
      const key = this.peek();
      if (!["lower", "upper", "offset", "multiplier"].includes(key.text)) throw this.fail("'lower', 'upper', 'offset' or 'multiplier'");
      this.next();
      if (seen.has(key.text)) throw this.src.error("syntax", key.start, `'${key.text}' is given twice`);
      this.expect("=", `after '${key.text}'`);
      seen.set(key.text, this.binary(ADDITIVE));
    } while (this.eat(","));
    this.expect(">", "to close the bounds (a comparison inside bounds needs parentheses)");
    const range = seen.has("lower") || seen.has("upper");
    const affine = seen.has("offset") || seen.has("multiplier");
    if (range && affine) throw this.src.error("syntax", this.last(), "bounds mix lower/upper with offset/multiplier; give one kind");
    if (affine && base === "int") throw this.src.error("syntax", this.last(), "an int takes no offset/multiplier");
    return affine
      ? { kind: "affine", offset: seen.get("offset"), multiplier: seen.get("multiplier") }
      : { kind: "range", lower: seen.get("lower"), upper: seen.get("upper") };
  }

  private exprList(close: string, what: string): Expr[] {
    const out: Expr[] = [];
    if (this.at(close)) throw this.fail(what);
    do out.push(this.expression());
    while (this.eat(","));
    this.expect(close, `to close the list`);
    return out;
  }

  // ------------------------------------------------------------ functions

  private functionDefs(): FunDef[] {
    const out: FunDef[] = [];
    while (!this.at("}") && this.peek().kind !== "eof") out.push(this.functionDef());
    return out;
  }

  private functionDef(): FunDef {
    const start = this.peek().start;
    const returnType = this.funType(true);
    const name = this.ident("as the function's name");
    this.expect("(", "after the function's name");
    const args: { type: FunType; name: string; span: Span }[] = [];
    if (!this.at(")")) {
      do {
        const s = this.peek().start;
        const type = this.funType(false);
        const n = this.ident("as an argument's name");
        args.push({ type, name: n.text, span: this.span(s) });
      } while (this.eat(","));
    }
    this.expect(")", "to close the argument list");
    const body = this.eat(";") ? undefined : this.blockStatement();
    return { returnType, name: name.text, args, body, span: this.span(start) };
  }

  private funType(isReturn: boolean): FunType {
    const start = this.peek().start;
    const dataOnly = !isReturn && this.eat("data");
    let arrayDims = 0;
    if (this.eat("array")) {
      this.expect("[", "after 'array' (array[] real, array[,] int)");
      arrayDims = 1;
      while (this.eat(",")) arrayDims++;
      this.expect("]", "to close array[...]");
    }
    const t = this.peek();
    const bases = ["void", "int", "real", "complex", "vector", "row_vector", "matrix", "complex_vector", "complex_row_vector", "complex_matrix", "tuple"];
    if (t.kind !== "ident" || !bases.includes(t.text) || (t.text === "void" && !isReturn)) {
      throw this.fail(isReturn ? "a return type (void, real, vector, array[] real, …)" : "an argument type (real, vector, data array[] int, …)");
    }
    this.next();
    if (t.text === "tuple") throw this.src.error("unsupported", t.start, "tuple types are not supported");
    if (this.eat("[")) {
      // Old array syntax in signatures: real[], int[,].
      arrayDims = 1;
      while (this.eat(",")) arrayDims++;
      this.expect("]", "to close the array brackets");
    }
    return { dataOnly, base: t.text as FunType["base"], arrayDims, span: this.span(start) };
  }

  // ------------------------------------------------------------ statements

  private blockStatement(): Stmt {
    const start = this.expect("{", "to open a block").start;
    const body: Stmt[] = [];
    while (!this.at("}") && this.peek().kind !== "eof") {
      if (this.isDeclStart()) body.push(...this.varDecls(false));
      else body.push(this.statement());
    }
    this.expect("}", "to close the block opened at line " + start.line);
    return { kind: "block", body, span: this.span(start) };
  }

  /** One statement. */
  statement(): Stmt {
    const t = this.peek();
    const start = t.start;
    if (t.kind === "ident") {
      switch (t.text) {
        case "for": return this.forStatement();
        case "while": {
          this.next();
          this.expect("(", "after 'while'");
          const test = this.expression();
          this.expect(")", "to close the condition");
          return { kind: "while", test, body: this.statement(), span: this.span(start) };
        }
        case "if": return this.ifStatement();
        case "break":
        case "continue":
          this.next();
          this.expect(";", `after '${t.text}'`);
          return { kind: t.text, span: this.span(start) };
        case "return": {
          this.next();
          const value = this.at(";") ? undefined : this.expression();
          this.expect(";", "after the returned value");
          return { kind: "return", value, span: this.span(start) };
        }
        case "print":
        case "reject":
        case "fatal_error": {
          this.next();
          this.expect("(", `after '${t.text}'`);
          const args = this.exprList(")", "something to print");
          this.expect(";", `after ${t.text}(...)`);
          return { kind: t.text, args, span: this.span(start) };
        }
        case "target":
          if (this.at("+=", 1)) {
            this.pos += 2;
            const value = this.expression();
            this.expect(";", "after 'target += ...'");
            return { kind: "target", value, span: this.span(start) };
          }
          break;
        case "profile": return this.profileStatement();
        case "increment_log_prob":
          throw this.src.error("syntax", start, "increment_log_prob(...) was removed from Stan; write target += ...;");
        default:
      }
    }
    if (this.at("{")) return this.blockStatement();
    if (this.eat(";")) return { kind: "empty", span: this.span(start) };
    return this.expressionStatement(start);
  }

  private forStatement(): Stmt {
    const start = this.next().start;
    this.expect("(", "after 'for'");
    const v = this.ident("as the loop variable");
    this.expect("in", "after the loop variable (for (i in 1:N))");
    const first = this.expression();
    if (this.eat(":")) {
      const upper = this.expression();
      this.expect(")", "to close the loop's range");
      return { kind: "for", variable: v.text, lower: first, upper, body: this.statement(), span: this.span(start) };
    }
    this.expect(")", "or ':' in the loop header");
    return { kind: "foreach", variable: v.text, collection: first, body: this.statement(), span: this.span(start) };
  }

  private ifStatement(): Stmt {
    const start = this.next().start;
    this.expect("(", "after 'if'");
    const test = this.expression();
    this.expect(")", "to close the condition");
    const then = this.statement();
    const otherwise = this.eat("else") ? this.statement() : undefined;
    return { kind: "if", test, then, else: otherwise, span: this.span(start) };
  }

  private profileStatement(): Stmt {
    const start = this.next().start;
    this.expect("(", "after 'profile'");
    const label = this.peek();
    if (label.kind !== "string") throw this.fail("a string naming the profile");
    this.next();
    this.expect(")", "after the profile's name");
    const block = this.blockStatement();
    return { kind: "profile", label: label.text.slice(1, -1), body: block.kind === "block" ? block.body : [], span: this.span(start) };
  }

  private expressionStatement(start: Position): Stmt {
    const e = this.expression();
    if (this.eat("~")) return this.tilde(start, e);
    const op = this.peek();
    if (op.kind === "op" && ASSIGN_OPS.has(op.text)) {
      const target = this.lvalue(e);
      this.next();
      const value = this.expression();
      this.expect(";", "after the assignment");
      return { kind: "assign", target, op: op.text as AssignOp, value, span: this.span(start) };
    }
    if (op.kind === "op" && op.text === "<-") throw this.src.error("syntax", op.start, "the assignment '<-' was removed from Stan; write '='");
    if (e.kind === "call") {
      this.expect(";", "after the function call");
      return { kind: "call", call: e, span: this.span(start) };
    }
    throw this.fail("'=', '~', or another assignment operator after the expression (a statement cannot be an expression alone)");
  }

  private tilde(start: Position, value: Expr): Stmt {
    const dist = this.ident("as the distribution's name after '~'");
    this.expect("(", "after the distribution's name");
    const args = this.at(")") ? [] : this.exprList(")", "an argument");
    if (args.length === 0) this.expect(")", "to close the arguments");
    let truncation: { lower: Expr | undefined; upper: Expr | undefined } | undefined;
    if (this.peek().kind === "ident" && this.peek().text === "T" && this.at("[", 1)) {
      this.pos += 2;
      const lower = this.at(",") ? undefined : this.expression();
      this.expect(",", "in the truncation T[lower, upper]");
      const upper = this.at("]") ? undefined : this.expression();
      this.expect("]", "to close the truncation");
      truncation = { lower, upper };
    }
    this.expect(";", "after the sampling statement");
    return { kind: "tilde", value, dist: dist.text, distSpan: { start: dist.start, end: dist.end }, args, truncation, span: this.span(start) };
  }

  private lvalue(e: Expr): LValue {
    const lists: (readonly Index[])[] = [];
    let cur = e;
    while (cur.kind === "index") {
      lists.unshift(cur.indices);
      cur = cur.target;
    }
    if (cur.kind !== "var") throw this.src.error("syntax", e.span.start, "the left of an assignment must be a variable, indexed or not (x, x[i], x[i, j])");
    return { name: cur.name, indices: lists, span: e.span };
  }

  // ------------------------------------------------------------ expressions

  /** An expression: the conditional operator is the lowest level, right-associative. */
  expression(): Expr {
    const start = this.peek().start;
    const test = this.binary(0);
    if (!this.eat("?")) return test;
    const then = this.expression();
    this.expect(":", "in the conditional expression a ? b : c");
    const otherwise = this.expression();
    return { kind: "cond", test, then, else: otherwise, span: this.span(start) };
  }

  private binary(level: number): Expr {
    if (level === LEVELS.length) return this.unary();
    const start = this.peek().start;
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (t.kind !== "op" || !LEVELS[level]!.includes(t.text as BinaryOp)) return left;
      this.next();
      const right = this.binary(level + 1);
      left = { kind: "binary", op: t.text as BinaryOp, left, right, span: this.span(start) };
    }
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === "op" && (t.text === "-" || t.text === "+" || t.text === "!")) {
      this.next();
      const operand = this.unary();
      return { kind: "unary", op: t.text, operand, span: this.span(t.start) };
    }
    return this.power();
  }

  private power(): Expr {
    const start = this.peek().start;
    const base = this.postfix();
    const t = this.peek();
    if (t.kind === "op" && (t.text === "^" || t.text === ".^")) {
      this.next();
      const exponent = this.unary(); // right-associative, and -a^b is -(a^b) since ^ binds tighter
      return { kind: "binary", op: t.text, left: base, right: exponent, span: this.span(start) };
    }
    return base;
  }

  private postfix(): Expr {
    const start = this.peek().start;
    let e = this.primary();
    for (;;) {
      if (this.eat("[")) {
        const indices = this.indices();
        e = { kind: "index", target: e, indices, span: this.span(start) };
      } else if (this.eat("'")) {
        e = { kind: "transpose", operand: e, span: this.span(start) };
      } else return e;
    }
  }

  private indices(): Index[] {
    const out: Index[] = [];
    do {
      const start = this.peek().start;
      if (this.eat(":")) {
        const upper = this.at(",") || this.at("]") ? undefined : this.expression();
        out.push({ kind: "range", lower: undefined, upper, span: this.span(start) });
        continue;
      }
      if (this.at("]") || this.at(",")) throw this.fail("an index");
      const e = this.expression();
      if (this.eat(":")) {
        const upper = this.at(",") || this.at("]") ? undefined : this.expression();
        out.push({ kind: "range", lower: e, upper, span: this.span(start) });
      } else out.push({ kind: "single", expr: e, span: this.span(start) });
    } while (this.eat(","));
    this.expect("]", "to close the indices");
    return out;
  }

  private primary(): Expr {
    const t = this.peek();
    const start = t.start;
    switch (t.kind) {
      case "int":
        this.next();
        return { kind: "int", value: Number(t.text.replaceAll("_", "")), text: t.text, span: this.span(start) };
      case "real":
        this.next();
        return { kind: "real", value: Number(t.text.replaceAll("_", "")), text: t.text, span: this.span(start) };
      case "imag":
        this.next();
        return { kind: "imag", text: t.text, span: this.span(start) };
      case "string":
        this.next();
        return { kind: "string", value: t.text.slice(1, -1), span: this.span(start) };
      case "ident":
        return this.identExpr();
      default:
    }
    if (this.eat("(")) {
      const inner = this.expression();
      this.expect(")", "to close the parenthesis");
      return { kind: "paren", inner, span: this.span(start) };
    }
    if (this.eat("{")) {
      const elements = this.exprList("}", "an element of the array expression");
      return { kind: "array", elements, span: this.span(start) };
    }
    if (this.eat("[")) {
      const elements = this.exprList("]", "an element of the row-vector expression");
      return { kind: "rowvector", elements, span: this.span(start) };
    }
    throw this.fail("an expression");
  }

  private identExpr(): Expr {
    const t = this.peek();
    if (!this.at("(", 1)) {
      const name = this.ident("as a variable");
      return { kind: "var", name: name.text, span: { start: name.start, end: name.end } };
    }
    this.pos += 2;
    const args: Expr[] = [];
    let conditional = false;
    if (!this.at(")")) {
      args.push(this.expression());
      if (this.at("|")) {
        if (!/_(lpdf|lupdf|lpmf|lupmf|cdf|lcdf|lccdf)$/.test(t.text)) {
          throw this.src.error("syntax", this.peek().start, `found '|': only a _lpdf, _lpmf, _cdf, _lcdf or _lccdf call takes its outcome before '|' ('${t.text}' is none)`);
        }
        this.next();
        conditional = true;
        if (!this.at(")")) args.push(this.expression());
      }
      while (this.eat(",")) args.push(this.expression());
    }
    this.expect(")", `to close the arguments of '${t.text}'`);
    return { kind: "call", name: t.text, args, conditional, span: this.span(t.start) };
  }
}
