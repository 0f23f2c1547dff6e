import {
  choleskyCorr, choleskyFactorCov, columnStochastic, corrMatrix, covMatrix, interval, lower, offsetMultiplier, ordered, positiveOrdered,
  real, rowStochastic, simplex, sumToZero, unitVector, upper, type Constraint,
} from "@ppl/ppl";
import type { Operand } from "@ppl/tensor";
import type { BaseKind } from "../syntax/ast.ts";

/** Evaluated bounds of a declaration. */
export type BoundVals =
  | { readonly kind: "none" }
  | { readonly kind: "range"; readonly lower: Operand | undefined; readonly upper: Operand | undefined }
  | { readonly kind: "affine"; readonly offset: Operand | undefined; readonly multiplier: Operand | undefined };

/** The constraint (transform) of a parameter declared with this type and these bounds, as Stan's. */
export function constraintOf(base: BaseKind, b: BoundVals): Constraint {
  switch (base) {
    case "simplex": return simplex();
    case "unit_vector": return unitVector();
    case "sum_to_zero_vector": return sumToZero();
    case "ordered": return ordered();
    case "positive_ordered": return positiveOrdered();
    case "cholesky_factor_corr": return choleskyCorr();
    case "cholesky_factor_cov": return choleskyFactorCov();
    case "corr_matrix": return corrMatrix();
    case "cov_matrix": return covMatrix();
    case "column_stochastic_matrix": return columnStochastic();
    case "row_stochastic_matrix": return rowStochastic();
    default:
  }
  if (b.kind === "affine") return offsetMultiplier(b.offset ?? 0, b.multiplier ?? 1);
  if (b.kind === "range") {
    if (b.lower !== undefined && b.upper !== undefined) return interval(b.lower, b.upper);
    if (b.lower !== undefined) return lower(b.lower);
    if (b.upper !== undefined) return upper(b.upper);
  }
  return real();
}

/** The shape of a declared value from its array dimensions and the sizes of its base type. */
export function declaredShape(base: BaseKind, arrayDims: readonly number[], sizes: readonly number[]): number[] {
  switch (base) {
    case "cholesky_factor_corr":
    case "corr_matrix":
    case "cov_matrix": return [...arrayDims, sizes[0]!, sizes[0]!];
    case "cholesky_factor_cov": return [...arrayDims, sizes[0]!, sizes[1] ?? sizes[0]!];
    default: return [...arrayDims, ...sizes];
  }
}
