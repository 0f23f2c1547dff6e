import type { Expr, Index, Stmt } from "../syntax/ast.ts";
import type { CheckedProgram } from "../check/check.ts";
import { isScalar, isUnknown } from "../check/types.ts";
import { DENSITY_SUFFIX, DISTRIBUTIONS } from "../library/distributions.ts";
import { FUNCTIONS } from "../library/functions.ts";

/**
 * The loop pass: whether a `for` loop may run as one vectorized pass, its index bound to the vector
 * of all its values, rather than unrolled into one traced copy of its body per iteration.
 *
 * That is exact when every iteration computes scalars only, independently of the others: the body
 * holds target +=, ~ of a univariate distribution, declarations of scalar locals and assignments to
 * them, and loops over bounds that do not involve the index; every expression in it is a scalar (a
 * container appears only indexed down to a scalar), every function it calls acts elementwise on
 * scalars, and the index is never needed as a number known while tracing (a size, a range's end,
 * a loop bound, a condition). Each scalar then becomes a vector over the iterations, indexing by the
 * index a gather, a density call its pointwise log density, and target += the sum over the loop.
 */
export function vectorizable(loop: Stmt & { kind: "for" }, c: CheckedProgram): boolean {
  const locals = new Set<string>();
  return body(loop.body, loop.variable, locals, c, loop.body);
}

/**
 * Whether `s` is an accumulation into a real scalar from outside the loop, `s += value` or
 * `x[a, b] -= value` with indices that do not involve the loop index, whose variable the loop's
 * body names nowhere else: the loop adds (subtracts) the sum of the values over its iterations.
 */
export function isAccumulation(s: Stmt, index: string, c: CheckedProgram, whole: Stmt): s is Stmt & { kind: "assign" } {
  if (s.kind !== "assign" || (s.op !== "+=" && s.op !== "-=")) return false;
  const t = c.targets.get(s.target);
  if (t === undefined || !isScalar(t) || t.base !== "real") return false;
  if (s.target.indices.flat().some((i) => i.kind !== "single" || mentions(i.expr, index))) return false;
  return namedOnlyAsAccumulation(whole, s.target.name, index, c, whole);
}

// Whether the statement names `name` only as the target of accumulations (never reads it).
function namedOnlyAsAccumulation(s: Stmt, name: string, index: string, c: CheckedProgram, whole: Stmt): boolean {
  const inExprs = (es: readonly (Expr | undefined)[]) => es.some((e) => e !== undefined && mentions(e, name));
  switch (s.kind) {
    case "block": return s.body.every((b) => namedOnlyAsAccumulation(b, name, index, c, whole));
    case "decl": return s.name !== name && !inExprs([s.init]);
    case "assign":
      if (s.target.name === name) return (s.op === "+=" || s.op === "-=") && !inExprs([s.value, ...s.target.indices.flat().flatMap((i) => (i.kind === "single" ? [i.expr] : [i.lower, i.upper]))]);
      return !inExprs([s.value, ...s.target.indices.flat().flatMap((i) => (i.kind === "single" ? [i.expr] : [i.lower, i.upper]))]);
    case "target": return !inExprs([s.value]);
    case "tilde": return !inExprs([s.value, ...s.args]);
    case "for": return !inExprs([s.lower, s.upper]) && s.variable !== name && namedOnlyAsAccumulation(s.body, name, index, c, whole);
    case "empty": return true;
    default: return false;
  }
}

/** Whether `s` is x[i] = value for the loop index i, x declared outside the loop: the loop fills x[lo:hi] (a map). */
export function isMapAssignment(s: Stmt, index: string): s is Stmt & { kind: "assign" } {
  if (s.kind !== "assign" || s.op !== "=" || s.target.indices.length !== 1) return false;
  const [list] = s.target.indices;
  return list!.length === 1 && list![0]!.kind === "single" && list![0]!.expr.kind === "var" && list![0]!.expr.name === index;
}

// Whether the loop's body reads the variable other than as x[i] of its own iteration (a map's
// target read at another place would carry state between iterations).
function reads(s: Stmt, name: string, index: string): boolean {
  const m = (e: Expr) => mentions(ownEntryHidden(e, name, index), name);
  switch (s.kind) {
    case "block": return s.body.some((b) => reads(b, name, index));
    case "decl": return s.init !== undefined && m(s.init);
    case "assign": return m(s.value) || s.target.indices.flat().some((i) => indexMentions(i, name));
    case "target": return m(s.value);
    case "tilde": return [s.value, ...s.args].some(m);
    case "for": return mentions(s.lower, name) || mentions(s.upper, name) || reads(s.body, name, index);
    default: return true;
  }
}

// The expression with every x[i] (x the name, i the loop index) replaced by a literal, so that only other reads of x remain.
function ownEntryHidden(e: Expr, name: string, index: string): Expr {
  const own = (x: Expr): boolean =>
    x.kind === "index" && x.target.kind === "var" && x.target.name === name && x.indices.length === 1 && x.indices[0]!.kind === "single" && x.indices[0]!.expr.kind === "var" && x.indices[0]!.expr.name === index;
  const go = (x: Expr): Expr => {
    if (own(x)) return { kind: "int", value: 0, text: "0", span: x.span };
    switch (x.kind) {
      case "binary": return { ...x, left: go(x.left), right: go(x.right) };
      case "unary": return { ...x, operand: go(x.operand) };
      case "paren": return { ...x, inner: go(x.inner) };
      case "call": return { ...x, args: x.args.map(go) };
      case "cond": return { ...x, test: go(x.test), then: go(x.then), else: go(x.else) };
      default: return x;
    }
  };
  return go(e);
}

function body(s: Stmt, index: string, locals: Set<string>, c: CheckedProgram, whole: Stmt): boolean {
  switch (s.kind) {
    case "block": return s.body.every((b) => body(b, index, locals, c, whole));
    case "empty": return true;
    case "decl":
      if (s.type.base !== "real" && s.type.base !== "int") return false;
      if (s.type.arrayDims.length > 0) return false;
      locals.add(s.name);
      return s.init === undefined || scalarExpr(s.init, index, c);
    case "assign": {
      // Locals of the body, or x[i] = … into a variable from outside that the body never reads
      // (reading it would carry state between iterations).
      if (locals.has(s.target.name) && s.target.indices.length === 0) return scalarExpr(s.value, index, c);
      if (!locals.has(s.target.name) && isAccumulation(s, index, c, whole)) return scalarExpr(s.value, index, c);
      const t = c.targets.get(s.target);
      return isMapAssignment(s, index) && !locals.has(s.target.name) && t !== undefined && isScalar(t) && !reads(whole, s.target.name, index) && scalarExpr(s.value, index, c);
    }
    case "target": return scalarExpr(s.value, index, c);
    case "tilde": {
      const d = DISTRIBUTIONS[s.dist];
      if (!d || d.draw !== undefined || s.truncation) return false;
      return scalarExpr(s.value, index, c) && s.args.every((a) => scalarExpr(a, index, c));
    }
    case "for":
      if (mentions(s.lower, index) || mentions(s.upper, index)) return false;
      return body(s.body, index, locals, c, whole);
    default: return false;
  }
}

// Whether an expression names a variable.
function mentions(e: Expr, name: string): boolean {
  switch (e.kind) {
    case "var": return e.name === name;
    case "binary": return mentions(e.left, name) || mentions(e.right, name);
    case "unary":
    case "transpose": return mentions(e.operand, name);
    case "paren": return mentions(e.inner, name);
    case "cond": return mentions(e.test, name) || mentions(e.then, name) || mentions(e.else, name);
    case "call": return e.args.some((a) => mentions(a, name));
    case "index": return mentions(e.target, name) || e.indices.some((i) => indexMentions(i, name));
    case "array":
    case "rowvector": return e.elements.some((a) => mentions(a, name));
    default: return false;
  }
}

function indexMentions(i: Index, name: string): boolean {
  return i.kind === "single" ? mentions(i.expr, name) : [i.lower, i.upper].some((x) => x !== undefined && mentions(x, name));
}

// A scalar expression whose every part is a scalar, computed elementwise.
function scalarExpr(e: Expr, index: string, c: CheckedProgram): boolean {
  const t = c.types.get(e);
  if (!t || isUnknown(t) || !isScalar(t)) return false;
  switch (e.kind) {
    case "int":
    case "real":
    case "var": return true;
    case "paren": return scalarExpr(e.inner, index, c);
    case "unary": return scalarExpr(e.operand, index, c);
    case "binary": return scalarExpr(e.left, index, c) && scalarExpr(e.right, index, c);
    case "cond": return false;
    case "index":
      // A container indexed down to a scalar by scalar indices (the loop's index, or expressions of it).
      return (e.target.kind === "var" || e.target.kind === "index") && indexedDown(e, index, c);
    case "call": {
      if (!e.args.every((a) => scalarExpr(a, index, c))) return false;
      if (c.functions.has(e.name)) return false;
      const m = DENSITY_SUFFIX.exec(e.name);
      if (m) {
        const d = DISTRIBUTIONS[m[1]!];
        return d !== undefined && d.draw === undefined && /^(lpdf|lupdf|lpmf|lupmf)$/.test(m[2]!);
      }
      return FUNCTIONS[e.name]?.elementwise === true;
    }
    default: return false;
  }
}

function indexedDown(e: Expr & { kind: "index" }, index: string, c: CheckedProgram): boolean {
  if (!e.indices.every((i) => i.kind === "single" && scalarIndex(i.expr, index, c))) return false;
  return e.target.kind === "var" || (e.target.kind === "index" && indexedDown(e.target, index, c));
}

// An index: a scalar int expression (of the loop index, of data, of literals).
function scalarIndex(e: Expr, index: string, c: CheckedProgram): boolean {
  const t = c.types.get(e);
  if (!t || t.base !== "int" || t.dims !== 0) return false;
  return e.kind === "index" ? indexedDown(e, index, c) : e.kind === "var" || e.kind === "int" || (e.kind === "binary" && scalarIndex(e.left, index, c) && scalarIndex(e.right, index, c)) || (e.kind === "paren" && scalarIndex(e.inner, index, c));
}

/** Why a loop cannot run vectorized, for messages: the first construct of its body that the loop pass does not take. */
export function whyNotVectorized(loop: Stmt & { kind: "for" }, c: CheckedProgram): string {
  const why = (s: Stmt): string | undefined => {
    switch (s.kind) {
      case "block": return s.body.map(why).find((r) => r !== undefined);
      case "decl": return s.type.base !== "real" && s.type.base !== "int" || s.type.arrayDims.length > 0 ? `it declares the local container '${s.name}'` : expr(s.init);
      case "assign": return s.target.indices.length === 0 || isMapAssignment(s, loop.variable) || isAccumulation(s, loop.variable, c, loop.body) ? expr(s.value) : `it assigns '${s.target.name}' at another place than [${loop.variable}] (state carried between iterations)`;
      case "target": return expr(s.value);
      case "tilde": return DISTRIBUTIONS[s.dist]?.draw !== undefined || s.truncation ? `~ ${s.dist} is multivariate or truncated` : [s.value, ...s.args].map(expr).find((r) => r !== undefined);
      case "for": return mentions(s.lower, loop.variable) || mentions(s.upper, loop.variable) ? `an inner loop's bounds depend on '${loop.variable}'` : why(s.body);
      case "empty": return undefined;
      default: return `it holds ${s.kind === "if" ? "an if statement" : `a '${s.kind}' statement`}`;
    }
  };
  const expr = (e: Expr | undefined): string | undefined => {
    if (!e) return undefined;
    const user = calls(e).find((n) => c.functions.has(n));
    if (user) return `it calls the user-defined function '${user}'`;
    return scalarExpr(e, loop.variable, c) ? undefined : "an expression in it is not a scalar computed entry by entry";
  };
  return why(loop.body) ?? "it reads a variable that an iteration assigns (state carried between iterations)";
}

// The functions an expression calls.
function calls(e: Expr): string[] {
  switch (e.kind) {
    case "call": return [e.name, ...e.args.flatMap(calls)];
    case "binary": return [...calls(e.left), ...calls(e.right)];
    case "unary":
    case "transpose": return calls(e.operand);
    case "paren": return calls(e.inner);
    case "cond": return [e.test, e.then, e.else].flatMap(calls);
    case "index": return [...calls(e.target), ...e.indices.flatMap((i) => (i.kind === "single" ? calls(i.expr) : [i.lower, i.upper].flatMap((x) => (x ? calls(x) : []))))];
    case "array":
    case "rowvector": return e.elements.flatMap(calls);
    default: return [];
  }
}
