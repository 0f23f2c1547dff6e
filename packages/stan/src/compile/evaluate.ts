import {
  add, and, cast, constant, data as dataLeaf, div, eq, ge, gt, le, lt, matmul, mod, mT, mul, ne, neg, or, pow, quotient, reshape, select, solve, sub, sum,
  type Node,
} from "@ppl/tensor";
import type { Distribution } from "@ppl/ppl";
import type { BinaryOp, Expr, FunDef, Index, Stmt } from "../syntax/ast.ts";
import type { SourceFile, Span } from "../syntax/source.ts";
import { StanError } from "../syntax/source.ts";
import type { CheckedProgram } from "../check/check.ts";
import { isScalar, UNKNOWN, type SType } from "../check/types.ts";
import { DENSITY_SUFFIX, DISTRIBUTIONS } from "../library/distributions.ts";
import { FUNCTIONS, StaticValueError, type Arg } from "../library/functions.ts";
import { IndexRangeError, readIndex, type IndexVal } from "./indexing.ts";
import { copyVal, isCells, materialize, type Val } from "./values.ts";
import type { KnownValues } from "./known.ts";
import { ODE_SOLVERS } from "../library/ode.ts";
import { odeCall, type OdeHost } from "./ode-call.ts";
import { UNSUPPORTED_FUNCTION_FIX } from "./refuse.ts";

/** A random draw of generated quantities: the leaf that stands for it, its distribution's arguments (nodes, possibly of earlier draws) and how to make it. */
export interface RngCall {
  readonly leaf: Node;
  readonly args: readonly Node[];
  readonly make: (args: readonly Node[]) => Distribution;
  readonly shape: readonly number[];
  readonly span: Span;
}

/** `return` inside a user-defined function, carrying its value up to the call. */
export class ReturnSignal {
  constructor(readonly value: Val | undefined) {}
}

const MAX_CALL_DEPTH = 200;

/**
 * Evaluates expressions of a checked program while its model is traced: numbers known now stay
 * numbers (so that sizes, loop bounds and branches on them are decided here), everything else
 * becomes graph nodes. Statements are the subclass's (tracer.ts).
 */
export abstract class Evaluator {
  protected readonly frames: Map<string, Val>[] = [new Map()];
  private depth = 0;
  /** True while a vectorized loop's body is traced: every scalar is a vector over the iterations, and density calls stay pointwise. */
  protected batched = false;
  /** Set while generated quantities are traced: each _rng call becomes a leaf drawn per kept draw (generated.ts). */
  protected rngCalls: RngCall[] | undefined;

  /** @param known the data's values, so that what follows from data alone is decided while tracing (as Stan decides it at run time). */
  constructor(protected readonly checked: CheckedProgram, protected readonly src: SourceFile, protected readonly known?: KnownValues) {}

  /** A scalar's value when it is known while tracing (a number, or a node of data alone), else undefined. */
  protected knownScalar(v: Val): number | undefined {
    if (typeof v === "number") return v;
    if (isCells(v)) return undefined;
    if (v.op === "const" && typeof v.attrs.value === "number" && v.rank === 0) return v.attrs.value;
    return this.known?.scalar(v);
  }

  /** A value that follows from data and a loop index that is not a number while tracing (the subclass's vmapped loops), else undefined. */
  protected decided(_n: Node): number | undefined {
    return undefined;
  }

  /** x[i] read inside a vmapped loop over i, where the loop fills x's rows (the subclass's), else undefined. */
  protected ownRow(_e: Expr & { kind: "index" }): Val | undefined {
    return undefined;
  }

  /** col(x, i), row(x, i) and their segments read inside a vmapped loop over i that fills x (the subclass's), else undefined. */
  protected ownCall(_e: Expr & { kind: "call" }): Val | undefined {
    return undefined;
  }

  /** Runs one statement (the subclass's). */
  protected abstract exec(s: Stmt): void;

  /** A StanError at `span`: an unsupported construct or a mistake found while tracing. */
  protected fail(kind: "semantic" | "unsupported", span: Span, msg: string): StanError {
    return this.src.error(kind, span.start, msg);
  }

  /** Runs f, placing errors it raises at `span` (errors already placed pass through). */
  protected at<T>(span: Span, what: string, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof StanError || e instanceof ReturnSignal || (typeof e === "object" && e !== null && "loop" in e)) throw e;
      if (e instanceof StaticValueError) throw this.fail("unsupported", span, `${what}: ${e.message}`);
      if (e instanceof IndexRangeError) throw this.fail("semantic", span, `${what}: ${e.message}`);
      throw this.fail("semantic", span, `${what}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  protected lookup(name: string, span: Span): Val {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const v = this.frames[i]!.get(name);
      if (v !== undefined) return v;
    }
    throw this.fail("unsupported", span, `'${name}' has no value here (a function passed by name is not supported)`);
  }

  protected setVar(name: string, v: Val): void {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      if (this.frames[i]!.has(name)) {
        this.frames[i]!.set(name, v);
        return;
      }
    }
    this.frames[this.frames.length - 1]!.set(name, v);
  }

  protected within<T>(f: () => T): T {
    this.frames.push(new Map());
    try {
      return f();
    } finally {
      this.frames.pop();
    }
  }

  protected typeOf(e: Expr): SType {
    return this.checked.types.get(e) ?? UNKNOWN;
  }

  /** A number that must be known while tracing: a size, a loop bound, a condition. */
  protected staticNumber(e: Expr, what: string): number {
    const v = this.eval(e);
    if (typeof v === "number") return v;
    const n = materialize(v);
    if (n.op === "const" && typeof n.attrs.value === "number") return n.attrs.value;
    const k = this.knownScalar(n) ?? this.decided(n);
    if (k !== undefined) return k;
    throw this.fail("unsupported", e.span, `${what} must be known before sampling (from data, transformed data or a loop index), but it depends on parameters; loop over a bound known from data and select with a conditional expression (c ? a : b) instead`);
  }

  /** The value of an expression. */
  eval(e: Expr): Val {
    switch (e.kind) {
      case "int":
      case "real": return e.value;
      case "string": throw this.fail("unsupported", e.span, "a string outside print, reject and fatal_error");
      case "imag": throw this.fail("unsupported", e.span, "complex numbers are not supported");
      case "paren": return this.eval(e.inner);
      case "var": return this.lookup(e.name, e.span);
      case "unary": return this.at(e.span, `unary '${e.op}'`, () => unaryOp(e.op, this.eval(e.operand)));
      case "transpose": {
        const v = this.eval(e.operand);
        return this.at(e.span, "transpose", () => (this.typeOf(e.operand).base === "matrix" ? mT(materialize(v)) : v));
      }
      case "binary": return this.binary(e);
      case "cond": return this.conditional(e);
      case "index": {
        const row = this.ownRow(e);
        if (row !== undefined) return row;
        const target = this.eval(e.target);
        const idx = this.indexVals(e.indices);
        return this.at(e.span, "indexing", () => readIndex(target, idx));
      }
      case "array":
      case "rowvector": {
        const cells = e.elements.map((x) => copyVal(this.eval(x)));
        const first = cells[0]!;
        const cellShape = typeof first === "number" ? [] : isCells(first) ? [first.cells.length, ...first.cellShape] : first.shape;
        return { cells, cellShape };
      }
      case "call": return this.ownCall(e) ?? this.call(e);
    }
  }

  protected indexVals(list: readonly Index[]): IndexVal[] {
    return list.map((i): IndexVal => {
      if (i.kind === "range") {
        return { kind: "range", lower: i.lower ? this.staticNumber(i.lower, "a range's lower end") : undefined, upper: i.upper ? this.staticNumber(i.upper, "a range's upper end") : undefined };
      }
      const v = this.eval(i.expr);
      if (typeof v === "number") return { kind: "single", at: v };
      const n = materialize(v);
      // In a vectorized loop, an int index holds one position per iteration.
      if (n.rank !== 0) return this.batched && isScalar(this.typeOf(i.expr)) ? { kind: "single", at: n } : { kind: "multi", at: n };
      // An index read from data is a number now: x[g[n]] of cells, or an assignment to it, needs the position.
      const k = this.knownScalar(n);
      return { kind: "single", at: k ?? n };
    });
  }

  private binary(e: Expr & { kind: "binary" }): Val {
    const left = this.eval(e.left);
    const l = e.op === "&&" || e.op === "||" ? (this.knownScalar(left) ?? left) : left;
    // && and || skip their right side when the left decides, as Stan does.
    if (typeof l === "number" && ((e.op === "&&" && l === 0) || (e.op === "||" && l !== 0))) return e.op === "||" ? 1 : 0;
    const r = this.eval(e.right);
    return this.at(e.span, `'${e.op}'`, () => binaryOp(e.op, l, r, this.typeOf(e.left), this.typeOf(e.right)));
  }

  private conditional(e: Expr & { kind: "cond" }): Val {
    const test = this.eval(e.test);
    const t = this.knownScalar(test) ?? test;
    if (typeof t === "number") return this.eval(t !== 0 ? e.then : e.else);
    const [a, b] = [this.eval(e.then), this.eval(e.else)];
    return this.at(e.span, "?:", () => select(ne(materialize(t), 0), materialize(a), materialize(b)));
  }

  private call(e: Expr & { kind: "call" }): Val {
    const user = this.checked.functions.get(e.name);
    if (user) return this.callUser(user, e.args.map((a) => this.eval(a)), e.span);
    const m = DENSITY_SUFFIX.exec(e.name);
    if (m && DISTRIBUTIONS[m[1]!]) return this.density(e, m[1]!, m[2]!);
    if (ODE_SOLVERS[e.name]) return odeCall(this.odeHost(), e);
    const f = FUNCTIONS[e.name];
    if (!f?.impl) throw this.fail("unsupported", e.span, `the function '${e.name}' is not supported yet; ${UNSUPPORTED_FUNCTION_FIX}`);
    const args = e.args.map((a) => this.intArg(a));
    return this.at(e.span, `'${e.name}'`, () => f.impl!(args, e.args.map((a) => this.typeOf(a))));
  }

  private odeHost(): OdeHost {
    return {
      eval: (x) => this.eval(x),
      staticNumber: (x, what) => this.staticNumber(x, what),
      callUser: (f, args, span) => this.callUser(f, args, span),
      at: (span, what, f) => this.at(span, what, f),
      userFunction: (x) => {
        const f = x.kind === "var" ? this.checked.functions.get(x.name) : undefined;
        if (!f) throw this.fail("semantic", x.span, "an ODE solver's first argument must name a user-defined function (its right-hand side)");
        return f;
      },
    };
  }

  // A function's argument; an int scalar known while tracing is passed as a number (a size, a segment's start).
  private intArg(a: Expr): Arg {
    const v = this.eval(a);
    const t = this.typeOf(a);
    return t.base === "int" && t.dims === 0 ? (this.knownScalar(v) ?? arg(v)) : arg(v);
  }

  /** A distribution of the library for a density call or a ~ statement. */
  protected distribution(name: string, args: readonly Expr[], outcome: Node, span: Span): Distribution {
    const d = DISTRIBUTIONS[name]!;
    const vals = args.map((a) => arg(this.eval(a)));
    return this.at(span, `'${name}'`, () => d.make(vals, outcome));
  }

  private density(e: Expr & { kind: "call" }, dist: string, suffix: string): Val {
    if (suffix === "rng") return this.rngCall(e, dist);
    const y = materialize(this.eval(e.args[0]!));
    const d = this.distribution(dist, e.args.slice(1), y, e.span);
    return this.at(e.span, `'${e.name}'`, () => {
      switch (suffix) {
        case "lcdf":
        case "cdf": {
          if (!d.lcdf) throw new StaticValueError();
          const s = sum(d.lcdf(y));
          return suffix === "cdf" ? s.exp() : s;
        }
        case "lccdf":
          if (!d.lccdf) throw new StaticValueError();
          return sum(d.lccdf(y));
        default: return this.batched ? d.logpdf(y) : sum(d.logpdf(y));
      }
    });
  }

  // A random draw: a leaf standing for it, with what its distribution is made of, drawn per kept draw.
  private rngCall(e: Expr & { kind: "call" }, dist: string): Node {
    if (!this.rngCalls) throw this.fail("unsupported", e.span, `random draws ('${e.name}') outside generated quantities are not supported yet`);
    const args = e.args.map((a) => materialize(this.eval(a)));
    const d = DISTRIBUTIONS[dist]!;
    const probe = this.at(e.span, `'${e.name}'`, () => d.make(args, args[0] ?? constant(0)));
    const shape = [...probe.batchShape, ...probe.eventShape];
    const leaf = dataLeaf(`rng:${this.rngCalls.length}`, shape);
    this.rngCalls.push({ leaf, args, make: (xs) => d.make(xs, xs[0] ?? constant(0)), shape, span: e.span });
    return leaf;
  }

  /** A call of a user-defined function, traced inline (recursion ends where its condition is known while tracing). */
  protected callUser(f: FunDef, args: readonly Val[], span: Span): Val {
    if (!f.body) throw this.fail("semantic", span, `function '${f.name}' is declared but never defined`);
    if (this.depth >= MAX_CALL_DEPTH) throw this.fail("unsupported", span, `recursion of '${f.name}' deeper than ${MAX_CALL_DEPTH} calls (its condition to stop must be known while tracing)`);
    const frame = new Map<string, Val>(f.args.map((a, i) => [a.name, copyVal(args[i]!)]));
    const saved = this.frames.splice(1);
    this.frames.push(frame);
    this.depth++;
    try {
      this.exec(f.body);
      return 0;
    } catch (e) {
      if (e instanceof ReturnSignal) return e.value ?? 0;
      throw e;
    } finally {
      this.depth--;
      this.frames.splice(1, this.frames.length - 1, ...saved);
    }
  }
}

function arg(v: Val): Arg {
  return typeof v === "number" ? v : materialize(v);
}

const bool = (n: Node) => cast(n, "f64");

function unaryOp(op: "-" | "+" | "!", v: Val): Val {
  if (typeof v === "number") return op === "-" ? -v : op === "+" ? v : v === 0 ? 1 : 0;
  const n = materialize(v);
  return op === "-" ? neg(n) : op === "+" ? n : bool(eq(n, 0));
}

function numbers(op: BinaryOp, a: number, b: number, ints: boolean): number {
  switch (op) {
    case "+": return a + b;
    case "-": return a - b;
    case "*": case ".*": return a * b;
    case "/": case "./": return ints ? Math.trunc(a / b) : a / b;
    case "%": return a % b;
    case "%/%": return Math.trunc(a / b);
    case "^": case ".^": return a ** b;
    case "<": return a < b ? 1 : 0;
    case "<=": return a <= b ? 1 : 0;
    case ">": return a > b ? 1 : 0;
    case ">=": return a >= b ? 1 : 0;
    case "==": return a === b ? 1 : 0;
    case "!=": return a !== b ? 1 : 0;
    case "&&": return a !== 0 && b !== 0 ? 1 : 0;
    case "||": return a !== 0 || b !== 0 ? 1 : 0;
    case "\\": throw new Error("left division of numbers");
  }
}

/** a op b with Stan's meaning for the operand types (matrix products, integer division, elementwise ops). */
export function binaryOp(op: BinaryOp, a: Val, b: Val, ta: SType, tb: SType): Val {
  const ints = ta.base === "int" && tb.base === "int" && ta.dims === 0 && tb.dims === 0;
  if (typeof a === "number" && typeof b === "number") return numbers(op, a, b, ints);
  const x = materialize(a), y = materialize(b);
  switch (op) {
    case "+": return add(x, y);
    case "-": return sub(x, y);
    case ".*": return mul(x, y);
    case "./": return div(x, y);
    case "*": return product(x, y, ta, tb);
    case "/":
      if (ints) return quotient(x, y);
      if (tb.base === "matrix" && tb.dims === 0) return mT(solve(mT(y), mT(x))); // a / B = a B⁻¹
      return div(x, y);
    case "\\": return solve(x, y);
    case "%": return mod(x, y);
    case "%/%": return quotient(x, y);
    case "^": case ".^": return pow(x, y);
    case "<": return bool(lt(x, y));
    case "<=": return bool(le(x, y));
    case ">": return bool(gt(x, y));
    case ">=": return bool(ge(x, y));
    case "==": return bool(eq(x, y));
    case "!=": return bool(ne(x, y));
    case "&&": return bool(and(ne(x, 0), ne(y, 0)));
    case "||": return bool(or(ne(x, 0), ne(y, 0)));
  }
}

function product(x: Node, y: Node, ta: SType, tb: SType): Node {
  const scalar = (t: SType) => t.dims === 0 && (t.base === "int" || t.base === "real");
  if (scalar(ta) || scalar(tb)) return mul(x, y);
  // vector * row_vector is an outer product; NumPy's rule for two 1-D operands would take the inner one.
  if (ta.base === "vector" && tb.base === "row_vector") return matmul(reshape(x, [x.size, 1]), reshape(y, [1, y.size]));
  return matmul(x, y);
}
