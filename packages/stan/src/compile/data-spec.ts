import { data, type DataField, type DataSpec } from "@ppl/ppl";
import type { Expr, VarDecl } from "../syntax/ast.ts";
import type { SourceFile } from "../syntax/source.ts";

// A literal number, or a negated one (<lower=-1>).
function literal(e: Expr | undefined): number | undefined {
  if (!e) return undefined;
  if (e.kind === "int" || e.kind === "real") return e.value;
  if (e.kind === "unary" && e.op === "-") {
    const v = literal(e.operand);
    return v === undefined ? undefined : -v;
  }
  if (e.kind === "paren") return literal(e.inner);
  return undefined;
}

/**
 * The data spec of a program's data block: each variable's kind, sizes (a number or the name of
 * an int data variable) and literal bounds, which compileModel checks against the data file.
 */
export function dataSpecOf(decls: readonly VarDecl[], src: SourceFile): DataSpec {
  const spec: Record<string, DataField> = {};
  for (const d of decls) {
    if (d.name === "q") throw src.error("unsupported", d.nameSpan.start, "the data name 'q' is reserved for the unconstrained parameter vector; rename it");
    const dims = [...d.type.arrayDims, ...d.type.sizes].map((e) => size(e, spec, src));
    if (d.type.base === "cholesky_factor_corr" || d.type.base === "corr_matrix" || d.type.base === "cov_matrix") dims.push(dims[dims.length - 1]!);
    if (d.type.base === "cholesky_factor_cov" && d.type.sizes.length === 1) dims.push(dims[dims.length - 1]!);
    if (d.type.base === "complex" || d.type.base.startsWith("complex_")) throw src.error("unsupported", d.span.start, "complex data are not supported");
    const b = d.type.bounds;
    const bounds: { lower?: number; upper?: number } = {};
    if (b.kind === "range") {
      const lo = literal(b.lower);
      const hi = literal(b.upper);
      if (lo !== undefined) bounds.lower = lo;
      if (hi !== undefined) bounds.upper = hi;
    }
    const isInt = d.type.base === "int";
    if (dims.length === 0) spec[d.name] = isInt ? data.int(bounds) : data.real(bounds);
    else spec[d.name] = data.array(...dims, { ...bounds, int: isInt });
  }
  return spec;
}

function size(e: Expr, spec: Readonly<Record<string, DataField>>, src: SourceFile): string | number {
  const v = literal(e);
  if (v !== undefined) return v;
  if (e.kind === "var" && spec[e.name]?.kind === "int") return e.name;
  throw src.error("unsupported", e.span.start, "a data variable's size must be a number or the name of an int data variable (an expression such as N - 1 is not supported yet)");
}
