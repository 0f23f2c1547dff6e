import type { Expr, Stmt } from "../syntax/ast.ts";
import type { CheckedProgram } from "../check/check.ts";
import { DENSITY_SUFFIX, DISTRIBUTIONS } from "../library/distributions.ts";
import { FUNCTIONS } from "../library/functions.ts";
import { ODE_SOLVERS } from "../library/ode.ts";

/** What to write instead of a function the library lacks. */
export const UNSUPPORTED_FUNCTION_FIX = "write it with the supported functions (docs/stan-support.md lists them) or as a user-defined function";
/** What to write instead of a distribution the library lacks. */
export const UNSUPPORTED_DISTRIBUTION_FIX = "write its log density as a user-defined _lpdf/_lpmf function, or with target +=";

/**
 * Refuses, before any data are read, the constructs the compiler does not support: each with the
 * construct's name and its place. (What can only be known with the data, such as a loop bound
 * that is not known while tracing, is refused when the model is built, also with its place.)
 */
export function refuseUnsupported(c: CheckedProgram): void {
  const fail = (e: { span: { start: { line: number; column: number; offset: number } } }, msg: string) => {
    throw c.source.error("unsupported", e.span.start, msg);
  };
  const expr = (e: Expr): void => {
    switch (e.kind) {
      case "imag": return fail(e, "complex numbers are not supported");
      case "call": {
        e.args.forEach(expr);
        if (c.functions.has(e.name)) return;
        const m = DENSITY_SUFFIX.exec(e.name);
        if (m && DISTRIBUTIONS[m[1]!]) return;
        if (!FUNCTIONS[e.name]?.impl && !ODE_SOLVERS[e.name]) fail(e, `the function '${e.name}' is not supported yet; ${UNSUPPORTED_FUNCTION_FIX}`);
        return;
      }
      case "binary": expr(e.left); expr(e.right); return;
      case "unary": return expr(e.operand);
      case "transpose": return expr(e.operand);
      case "paren": return expr(e.inner);
      case "cond": expr(e.test); expr(e.then); expr(e.else); return;
      case "index":
        expr(e.target);
        for (const i of e.indices) {
          if (i.kind === "single") expr(i.expr);
          else [i.lower, i.upper].forEach((x) => x && expr(x));
        }
        return;
      case "array":
      case "rowvector": e.elements.forEach(expr); return;
      default:
    }
  };
  const stmt = (s: Stmt): void => {
    switch (s.kind) {
      case "decl":
        if (s.type.base === "complex" || s.type.base.startsWith("complex_")) fail(s, `complex types (${s.type.base}) are not supported`);
        if (s.type.base === "sum_to_zero_matrix") fail(s, "sum_to_zero_matrix is not supported yet; declare its free entries as a matrix and complete the last row and column in transformed parameters");
        [...s.type.sizes, ...s.type.arrayDims].forEach(expr);
        if (s.init) expr(s.init);
        return;
      case "assign": expr(s.value); s.target.indices.flat().forEach((i) => (i.kind === "single" ? expr(i.expr) : [i.lower, i.upper].forEach((x) => x && expr(x)))); return;
      case "tilde":
        expr(s.value);
        s.args.forEach(expr);
        if (!DISTRIBUTIONS[s.dist] && !c.functions.has(`${s.dist}_lpdf`) && !c.functions.has(`${s.dist}_lpmf`)) fail(s, `the distribution '${s.dist}' is not supported yet; ${UNSUPPORTED_DISTRIBUTION_FIX}`);
        return;
      case "target": return expr(s.value);
      case "for": expr(s.lower); expr(s.upper); return stmt(s.body);
      case "foreach": expr(s.collection); return stmt(s.body);
      case "while": expr(s.test); return stmt(s.body);
      case "if": expr(s.test); stmt(s.then); if (s.else) stmt(s.else); return;
      case "return": if (s.value) expr(s.value); return;
      case "call": return expr(s.call);
      case "block":
      case "profile": s.body.forEach(stmt); return;
      default:
    }
  };
  for (const f of c.program.functions) if (f.body) stmt(f.body);
  for (const body of Object.values(c.program.blocks)) body?.forEach(stmt);
}
