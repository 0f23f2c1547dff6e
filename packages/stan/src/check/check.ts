import type { BlockName, DeclType, Expr, FunDef, FunType, Index, LValue, Program, Stmt, VarDecl } from "../syntax/ast.ts";
import { SourceFile, type Span, type StanError } from "../syntax/source.ts";
import { DENSITY_SUFFIX, DISTRIBUTIONS } from "../library/distributions.ts";
import { FUNCTIONS, KNOWN_UNSUPPORTED } from "../library/functions.ts";
import { ODE_SOLVERS, odeType } from "../library/ode.ts";
import { Scopes, type Origin, type VarInfo } from "./scope.ts";
import { binaryType } from "./operators.ts";
import {
  INT, REAL, UNKNOWN, assignable, declaredType, indexedType, isInt, isScalar, isUnknown, join, showType, ty, type Base, type SType,
} from "./types.ts";

/** The result of checking a program: the type of every expression, and the user-defined functions' signatures. */
export interface CheckedProgram {
  readonly program: Program;
  readonly source: SourceFile;
  readonly types: ReadonlyMap<Expr, SType>;
  readonly functions: ReadonlyMap<string, FunDef>;
  /** The type of each assignment's target place (the variable's type, indexed). */
  readonly targets: ReadonlyMap<LValue, SType>;
}

const BLOCK_ORDER: readonly Exclude<BlockName, "functions">[] = ["data", "transformed data", "parameters", "transformed parameters", "model", "generated quantities"];

/** Checks a parsed program (names, types, assignments, where statements may appear); throws the first error as a StanError. */
export function checkStan(program: Program, source: SourceFile): CheckedProgram {
  const c = new Checker(source);
  return c.run(program);
}

interface Context {
  readonly block: Exclude<BlockName, "functions"> | "function";
  readonly fn?: FunDef;
  readonly loops: number;
}

function funTypeOf(t: FunType): SType {
  return t.base === "void" ? ty("void") : ty(t.base === "complex_vector" || t.base === "complex_row_vector" || t.base === "complex_matrix" ? "complex" : (t.base as Base), t.arrayDims);
}

class Checker {
  private readonly scopes = new Scopes();
  private readonly types = new Map<Expr, SType>();
  private readonly functions = new Map<string, FunDef>();
  private readonly targets = new Map<LValue, SType>();
  /** Expressions found to depend on parameters (not data only). */
  private readonly dependsOnParams = new Set<Expr>();

  constructor(private readonly src: SourceFile) {}

  private err(span: Span, msg: string): StanError {
    return this.src.error("semantic", span.start, msg);
  }

  run(program: Program): CheckedProgram {
    for (const f of program.functions) this.declareFunction(f);
    for (const f of program.functions) if (f.body) this.checkFunction(f);
    for (const block of BLOCK_ORDER) {
      const body = program.blocks[block];
      if (!body) continue;
      const ctx: Context = { block, loops: 0 };
      for (const s of body) this.stmt(s, ctx);
    }
    return { program, source: this.src, types: this.types, functions: this.functions, targets: this.targets };
  }

  // ------------------------------------------------------------ functions

  private declareFunction(f: FunDef): void {
    const before = this.functions.get(f.name);
    if (before && before.body && f.body) throw this.err(f.span, `function '${f.name}' is defined twice (first at line ${before.span.start.line}); overloading is not supported`);
    if (FUNCTIONS[f.name] || DISTRIBUTIONS[f.name]) throw this.err(f.span, `function '${f.name}' has the name of a built-in function; rename it`);
    if (!before || f.body) this.functions.set(f.name, f);
  }

  private checkFunction(f: FunDef): void {
    this.scopes.within(() => {
      for (const a of f.args) this.declare({ name: a.name, type: funTypeOf(a.type), origin: "argument", span: a.span, dataOnly: a.type.dataOnly }, a.span);
      this.stmt(f.body!, { block: "function", fn: f, loops: 0 });
    });
  }

  // ------------------------------------------------------------ declarations

  private declare(v: VarInfo, span: Span): void {
    const before = this.scopes.declare(v);
    if (before) throw this.err(span, `'${v.name}' is already declared (line ${before.span.start.line}); give this variable another name`);
    if (v.name.endsWith("__")) throw this.err(span, `'${v.name}' ends in __, which Stan reserves; rename it`);
    if (FUNCTIONS[v.name] && v.origin !== "local") return;
  }

  private decl(s: VarDecl, ctx: Context): void {
    const t = s.type;
    const top = ctx.block !== "function" && ctx.block !== "model" && this.scopes.lookup(s.name) === undefined;
    // Sizes are ints, and an int never depends on parameters (Stan has no int parameters).
    for (const e of [...t.sizes, ...t.arrayDims]) {
      const et = this.expr(e, ctx);
      if (!isInt(et) && !isUnknown(et)) throw this.err(e.span, `a size must be an int, found ${showType(et)}`);
    }
    this.bounds(t, ctx);
    if (ctx.block === "parameters" && t.base === "int") throw this.err(t.span, `parameter '${s.name}' is an int; parameters must be real (marginalize discrete parameters out)`);
    const type = declaredType(t);
    if (s.init) {
      if (ctx.block === "data" || ctx.block === "parameters") throw this.err(s.init.span, `a variable of the '${ctx.block}' block cannot be given a value`);
      const it = this.expr(s.init, ctx);
      if (!assignable(type, it)) throw this.err(s.init.span, `'${s.name}' is declared ${showType(type)}, but its initial value is ${showType(it)}`);
    }
    const origin: Origin = top ? (ctx.block as Origin) : "local";
    const dataOnly = ctx.block === "data" || ctx.block === "transformed data" || type.base === "int";
    this.declare({ name: s.name, type, origin: ctx.block === "function" ? "local" : origin, span: s.nameSpan, dataOnly }, s.nameSpan);
  }

  private bounds(t: DeclType, ctx: Context): void {
    const b = t.bounds;
    const exprs = b.kind === "range" ? [b.lower, b.upper] : b.kind === "affine" ? [b.offset, b.multiplier] : [];
    for (const e of exprs) {
      if (!e) continue;
      const et = this.expr(e, ctx);
      if (isScalar(et) || isUnknown(et)) {
        if (t.base === "int" && !isInt(et)) throw this.err(e.span, `a bound of an int must be an int, found ${showType(et)}`);
        continue;
      }
      if (et.base !== declaredType({ ...t, arrayDims: [] }).base || et.dims !== 0) throw this.err(e.span, `a bound must be a scalar or of the declared type ${t.base}, found ${showType(et)}`);
    }
  }

  // ------------------------------------------------------------ statements

  private stmt(s: Stmt, ctx: Context): void {
    switch (s.kind) {
      case "decl": return this.decl(s, ctx);
      case "assign": return this.assign(s, ctx);
      case "tilde": return this.tilde(s, ctx);
      case "target":
        this.requireTarget(s.span, ctx);
        this.numeric(s.value, ctx, "target += takes");
        return;
      case "for": {
        for (const e of [s.lower, s.upper]) {
          const t = this.expr(e, ctx);
          if (!isInt(t) && !isUnknown(t)) throw this.err(e.span, `a loop bound must be an int, found ${showType(t)}`);
        }
        const dataOnly = !this.dependsOnParams.has(s.lower) && !this.dependsOnParams.has(s.upper);
        return this.scopes.within(() => {
          this.declare({ name: s.variable, type: INT, origin: "loop", span: s.span, dataOnly }, s.span);
          this.stmt(s.body, { ...ctx, loops: ctx.loops + 1 });
        });
      }
      case "foreach": {
        const t = this.expr(s.collection, ctx);
        const elem = t.dims > 0 ? ty(t.base as Base, t.dims - 1) : t.base === "matrix" || t.base === "vector" || t.base === "row_vector" ? REAL : UNKNOWN;
        if (isScalar(t)) throw this.err(s.collection.span, `a foreach loop runs over an array, vector or matrix, found ${showType(t)}`);
        return this.scopes.within(() => {
          this.declare({ name: s.variable, type: elem, origin: "loop", span: s.span, dataOnly: !this.dependsOnParams.has(s.collection) }, s.span);
          this.stmt(s.body, { ...ctx, loops: ctx.loops + 1 });
        });
      }
      case "while":
        this.condition(s.test, ctx);
        return this.stmt(s.body, { ...ctx, loops: ctx.loops + 1 });
      case "if":
        this.condition(s.test, ctx);
        this.scopes.within(() => this.stmt(s.then, ctx));
        if (s.else) this.scopes.within(() => this.stmt(s.else!, ctx));
        return;
      case "break":
      case "continue":
        if (ctx.loops === 0) throw this.err(s.span, `'${s.kind}' outside a loop`);
        return;
      case "return": return this.returnStmt(s.value, s.span, ctx);
      case "print":
      case "reject":
      case "fatal_error":
        for (const a of s.args) this.expr(a, ctx);
        return;
      case "call": {
        const t = this.expr(s.call, ctx);
        if (t.base !== "void" && !isUnknown(t)) throw this.err(s.span, `the value of '${s.call.name}' (${showType(t)}) is not used; assign it or add it to target`);
        return;
      }
      case "block":
      case "profile":
        return this.scopes.within(() => s.body.forEach((b) => this.stmt(b, ctx)));
      case "empty": return;
    }
  }

  private condition(e: Expr, ctx: Context): void {
    const t = this.expr(e, ctx);
    if (!isScalar(t) && !isUnknown(t)) throw this.err(e.span, `a condition must be an int or real, found ${showType(t)}`);
  }

  private numeric(e: Expr, ctx: Context, what: string): SType {
    const t = this.expr(e, ctx);
    if (t.base === "string" || t.base === "void") throw this.err(e.span, `${what} a number or a container of numbers, found ${showType(t)}`);
    return t;
  }

  private requireTarget(span: Span, ctx: Context): void {
    const ok = ctx.block === "model" || (ctx.block === "function" && ctx.fn!.name.endsWith("_lp"));
    if (!ok) throw this.err(span, `the log density (target += or ~) can be changed only in the model block or in a function whose name ends in _lp, not in ${where(ctx)}`);
  }

  private returnStmt(value: Expr | undefined, span: Span, ctx: Context): void {
    if (ctx.block !== "function") throw this.err(span, "'return' outside a function");
    const want = funTypeOf(ctx.fn!.returnType);
    if (!value) {
      if (want.base !== "void") throw this.err(span, `function '${ctx.fn!.name}' must return ${showType(want)}`);
      return;
    }
    const got = this.expr(value, ctx);
    if (want.base === "void") throw this.err(value.span, `function '${ctx.fn!.name}' returns void; return without a value`);
    if (!assignable(want, got)) throw this.err(value.span, `function '${ctx.fn!.name}' returns ${showType(want)}, but this value is ${showType(got)}`);
  }

  private assign(s: Stmt & { kind: "assign" }, ctx: Context): void {
    const v = this.scopes.lookup(s.target.name);
    if (!v) throw this.err(s.target.span, `'${s.target.name}' is not declared; declare it before assigning to it`);
    const bad = readOnly(v, ctx);
    if (bad) throw this.err(s.target.span, `cannot assign to '${v.name}': ${bad}`);
    let t = v.type;
    for (const list of s.target.indices) {
      const r = indexedType(t, this.indices(list, ctx));
      if (typeof r === "string") throw this.err(s.target.span, `${r} in the assignment to '${v.name}'`);
      t = r;
    }
    this.targets.set(s.target, t);
    const vt = this.expr(s.value, ctx);
    if (s.op !== "=") {
      const op = s.op.slice(0, -1) as "+" | "-" | "*" | "/" | ".*" | "./";
      const r = binaryType(op, t, vt);
      if (typeof r === "string") throw this.err(s.span, `'${s.op}': ${r}`);
      if (!assignable(t, r)) throw this.err(s.span, `'${s.op}' would make '${v.name}' ${showType(r)}, but it is ${showType(t)}`);
      return;
    }
    if (!assignable(t, vt)) throw this.err(s.value.span, `cannot assign ${showType(vt)} to '${v.name}'${s.target.indices.length > 0 ? " indexed so" : ""}, which is ${showType(t)}`);
  }

  private tilde(s: Stmt & { kind: "tilde" }, ctx: Context): void {
    this.requireTarget(s.span, ctx);
    this.numeric(s.value, ctx, "the left of '~' must be");
    for (const a of s.args) this.expr(a, ctx);
    for (const b of [s.truncation?.lower, s.truncation?.upper]) if (b) this.numeric(b, ctx, "a truncation bound must be");
    const user = this.functions.get(`${s.dist}_lpdf`) ?? this.functions.get(`${s.dist}_lpmf`);
    if (user) {
      if (user.args.length !== s.args.length + 1) throw this.err(s.distSpan, `'${s.dist}' takes ${user.args.length - 1} arguments after the outcome, found ${s.args.length}`);
      return;
    }
    const d = DISTRIBUTIONS[s.dist];
    if (!d) {
      if (KNOWN_UNSUPPORTED.has(`${s.dist}_lpdf`) || KNOWN_UNSUPPORTED.has(s.dist)) return;
      throw this.err(s.distSpan, `unknown distribution '${s.dist}'${/_(lpdf|lpmf|log)$/.test(s.dist) ? "; after ~ write the name without its suffix" : ""}`);
    }
    if (d.arity !== s.args.length) throw this.err(s.distSpan, `'${s.dist}' takes ${d.arity} argument${d.arity === 1 ? "" : "s"} after the outcome, found ${s.args.length}`);
  }

  // ------------------------------------------------------------ expressions

  private indices(list: readonly Index[], ctx: Context): ("single" | "multi")[] {
    return list.map((i) => {
      if (i.kind === "range") {
        for (const e of [i.lower, i.upper]) {
          if (!e) continue;
          const t = this.expr(e, ctx);
          if (!isInt(t) && !isUnknown(t)) throw this.err(e.span, `a range's ends must be ints, found ${showType(t)}`);
        }
        return "multi";
      }
      const t = this.expr(i.expr, ctx);
      if (isInt(t) || isUnknown(t)) return "single";
      if (t.base === "int" && t.dims === 1) return "multi";
      throw this.err(i.expr.span, `an index must be an int or an array of ints, found ${showType(t)}`);
    });
  }

  /** The type of an expression (recorded for the compiler). */
  expr(e: Expr, ctx: Context): SType {
    const t = this.exprType(e, ctx);
    this.types.set(e, t);
    return t;
  }

  private markParams(e: Expr, parts: readonly (Expr | undefined)[]): void {
    if (parts.some((p) => p !== undefined && this.dependsOnParams.has(p))) this.dependsOnParams.add(e);
  }

  private exprType(e: Expr, ctx: Context): SType {
    switch (e.kind) {
      case "int": return INT;
      case "real": return REAL;
      case "imag": return ty("complex");
      case "string": return ty("string");
      case "paren": {
        const t = this.expr(e.inner, ctx);
        this.markParams(e, [e.inner]);
        return t;
      }
      case "var": return this.variable(e);
      case "unary": {
        const t = this.expr(e.operand, ctx);
        this.markParams(e, [e.operand]);
        if (e.op === "!") {
          if (!isScalar(t) && !isUnknown(t)) throw this.err(e.span, `'!' takes an int or real, found ${showType(t)}`);
          return INT;
        }
        if (t.dims > 0 || t.base === "string") throw this.err(e.span, `unary '${e.op}' takes a number, vector or matrix, found ${showType(t)}`);
        return t;
      }
      case "transpose": {
        const t = this.expr(e.operand, ctx);
        this.markParams(e, [e.operand]);
        if (t.dims > 0 || !(t.base === "vector" || t.base === "row_vector" || t.base === "matrix")) throw this.err(e.span, `the transpose ' takes a vector or matrix, found ${showType(t)}`);
        return ty(t.base === "vector" ? "row_vector" : t.base === "row_vector" ? "vector" : "matrix");
      }
      case "binary": {
        const [l, r] = [this.expr(e.left, ctx), this.expr(e.right, ctx)];
        this.markParams(e, [e.left, e.right]);
        const t = binaryType(e.op, l, r);
        if (typeof t === "string") throw this.err(e.span, `'${e.op}': ${t}`);
        return t;
      }
      case "cond": {
        const test = this.expr(e.test, ctx);
        if (!isScalar(test) && !isUnknown(test)) throw this.err(e.test.span, `a condition must be an int or real, found ${showType(test)}`);
        const [a, b] = [this.expr(e.then, ctx), this.expr(e.else, ctx)];
        this.markParams(e, [e.test, e.then, e.else]);
        const t = join(a, b);
        if (!t) throw this.err(e.span, `the branches of ?: differ: ${showType(a)} and ${showType(b)}`);
        return t;
      }
      case "index": {
        const t = this.expr(e.target, ctx);
        const kinds = this.indices(e.indices, ctx);
        this.markParams(e, [e.target, ...e.indices.flatMap((i) => (i.kind === "single" ? [i.expr] : [i.lower, i.upper]))]);
        const r = indexedType(t, kinds);
        if (typeof r === "string") throw this.err(e.span, r);
        return r;
      }
      case "array":
      case "rowvector": return this.literalContainer(e, ctx);
      case "call": return this.call(e, ctx);
    }
  }

  private variable(e: Expr & { kind: "var" }): SType {
    const v = this.scopes.lookup(e.name);
    if (!v) {
      // A user function passed by name (an ODE's right-hand side): the higher-order functions that take one are refused when compiled.
      if (this.functions.has(e.name)) return UNKNOWN;
      if (FUNCTIONS[e.name]) throw this.err(e.span, `'${e.name}' is a function; call it with parentheses`);
      throw this.err(e.span, `'${e.name}' is not declared (no variable of that name in scope)`);
    }
    if (!v.dataOnly) this.dependsOnParams.add(e);
    return v.type;
  }

  private literalContainer(e: Expr & { kind: "array" | "rowvector" }, ctx: Context): SType {
    const ts = e.elements.map((x) => this.expr(x, ctx));
    this.markParams(e, e.elements);
    let t = ts[0]!;
    for (const u of ts.slice(1)) {
      const j = join(t, u);
      if (!j) throw this.err(e.span, `the elements differ in type: ${showType(t)} and ${showType(u)}`);
      t = j;
    }
    if (e.kind === "array") return isUnknown(t) ? UNKNOWN : ty(t.base as Base, t.dims + 1);
    if (isScalar(t)) return ty("row_vector");
    if (t.base === "row_vector" && t.dims === 0) return ty("matrix");
    throw this.err(e.span, `a [ ] expression holds numbers (a row vector) or row vectors (a matrix), found ${showType(t)}`);
  }

  private call(e: Expr & { kind: "call" }, ctx: Context): SType {
    const args = e.args.map((a) => this.expr(a, ctx));
    this.markParams(e, e.args);
    const user = this.functions.get(e.name);
    if (user) return this.userCall(e, user, args, ctx);
    const m = DENSITY_SUFFIX.exec(e.name);
    if (m) return this.densityCall(e, m[1]!, m[2]!, args, ctx);
    if (ODE_SOLVERS[e.name]) {
      const fn = e.args[0];
      if (fn?.kind !== "var" || !this.functions.has(fn.name)) throw this.err(e.span, `'${e.name}' takes the name of a user-defined function (the right-hand side) first`);
      const t = odeType(e.name, args);
      if (typeof t === "string") throw this.err(e.span, `'${e.name}' ${t}`);
      return t;
    }
    const f = FUNCTIONS[e.name];
    if (f) {
      const t = f.type(args);
      if (typeof t === "string") throw this.err(e.span, `'${e.name}' ${t}`);
      return t;
    }
    if (KNOWN_UNSUPPORTED.has(e.name)) return UNKNOWN;
    throw this.err(e.span, `unknown function '${e.name}'`);
  }

  private userCall(e: Expr & { kind: "call" }, f: FunDef, args: readonly SType[], ctx: Context): SType {
    if (f.args.length !== args.length) throw this.err(e.span, `'${f.name}' takes ${f.args.length} argument${f.args.length === 1 ? "" : "s"}, found ${args.length}`);
    f.args.forEach((a, i) => {
      const want = funTypeOf(a.type);
      if (!assignable(want, args[i]!)) throw this.err(e.args[i]!.span, `argument ${i + 1} of '${f.name}' is ${showType(want)}, found ${showType(args[i]!)}`);
      if (a.type.dataOnly && this.dependsOnParams.has(e.args[i]!)) throw this.err(e.args[i]!.span, `argument ${i + 1} of '${f.name}' must be data, but depends on parameters`);
    });
    this.suffixRules(e, ctx);
    return funTypeOf(f.returnType);
  }

  private suffixRules(e: Expr & { kind: "call" }, ctx: Context): void {
    if (e.name.endsWith("_rng")) {
      const ok = ctx.block === "transformed data" || ctx.block === "generated quantities" || (ctx.block === "function" && ctx.fn!.name.endsWith("_rng"));
      if (!ok) throw this.err(e.span, `'${e.name}' draws random numbers, allowed only in transformed data, generated quantities and functions ending in _rng, not in ${where(ctx)}`);
    }
    if (e.name.endsWith("_lp")) {
      const ok = ctx.block === "model" || ctx.block === "transformed parameters" || (ctx.block === "function" && ctx.fn!.name.endsWith("_lp"));
      if (!ok) throw this.err(e.span, `'${e.name}' changes the log density, allowed only in the model and transformed parameters blocks, not in ${where(ctx)}`);
    }
  }

  private densityCall(e: Expr & { kind: "call" }, dist: string, suffix: string, args: readonly SType[], ctx: Context): SType {
    this.suffixRules(e, ctx);
    const d = DISTRIBUTIONS[dist];
    if (!d) {
      if (KNOWN_UNSUPPORTED.has(e.name)) return UNKNOWN;
      throw this.err(e.span, `unknown function '${e.name}' (no distribution '${dist}')`);
    }
    if (suffix === "rng") {
      if (args.length !== d.arity) throw this.err(e.span, `'${e.name}' takes ${d.arity} argument${d.arity === 1 ? "" : "s"}, found ${args.length}`);
      if (d.draw === "int") return INT;
      if (d.draw === "int_array") return ty("int", 1);
      if (d.draw) return ty(d.draw);
      const base: Base = d.discrete ? "int" : "real";
      return args.some((a) => a.dims > 0 || a.base === "vector" || a.base === "row_vector") ? ty(base, 1) : ty(base);
    }
    if (args.length !== d.arity + 1) throw this.err(e.span, `'${e.name}' takes the outcome and ${d.arity} argument${d.arity === 1 ? "" : "s"}, found ${args.length} in all`);
    if (!e.conditional && args.length > 1) throw this.err(e.span, `'${e.name}' takes its outcome before '|': ${e.name}(y | ...)`);
    return REAL;
  }
}

// Why a variable may not be assigned here, or undefined if it may.
function readOnly(v: VarInfo, ctx: Context): string | undefined {
  switch (v.origin) {
    case "loop": return "it is a loop variable";
    case "argument": return "it is a function argument";
    case "local": return undefined;
    default:
      if (v.origin === ctx.block) return undefined;
      return `it is declared in the '${v.origin}' block and cannot be changed in ${where(ctx)}`;
  }
}

function where(ctx: Context): string {
  return ctx.block === "function" ? `function '${ctx.fn!.name}'` : `the '${ctx.block}' block`;
}
