import {
  choleskyCorr, choleskyFactorCov, columnStochastic, corrMatrix, covMatrix, interval, lower, offsetMultiplier, ordered, positiveOrdered,
  real, rowStochastic, simplex, sumToZero, unitVector, upper, type Constraint, type Transform,
} from "@ppl/ppl";
import { broadcastTo, data as dataLeaf, index, reshape, slice, stack, sum, type Node, type Operand, type Shape } from "@ppl/tensor";
import { batchGraph } from "@ppl/tensor/internals";
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

// The constraints that act on a whole vector or matrix, not entry by entry.
const STRUCTURED = new Set<BaseKind>([
  "simplex", "unit_vector", "sum_to_zero_vector", "ordered", "positive_ordered", "cholesky_factor_corr", "cholesky_factor_cov", "corr_matrix",
  "cov_matrix", "column_stochastic_matrix", "row_stochastic_matrix",
]);

/** The constraint of a declared parameter: an array of a structured type is one per element (`array[M] simplex[K]`). */
export function declaredConstraint(base: BaseKind, b: BoundVals, arrayDims: readonly number[]): Constraint {
  const one = constraintOf(base, b);
  return arrayDims.length > 0 && STRUCTURED.has(base) ? arrayOf(one, arrayDims) : one;
}

let rowLeaves = 0;

// f of each of the rows of `rows` ([count, ...]) at once: f traced on one row's placeholder and
// batched (batchGraph), so that the graph holds one transform, not one per element
// (ldaK5's 66 simplexes made 430 kernels); element by element where an op has no batching rule.
function overRows(f: (row: Node) => Node, rows: Node, count: number, each: () => Node): Node {
  const leaf = dataLeaf(`array-of:${++rowLeaves}`, rows.shape.slice(1), rows.dtype);
  try {
    const [b] = batchGraph([f(leaf)], new Map([[leaf, rows]]), count);
    return b!.batched ? b!.node : broadcastTo(b!.node, [count, ...b!.node.shape]);
  } catch {
    return each();
  }
}

/**
 * An array of a constrained type: each element its own transform of its own run of the
 * unconstrained values, elements in order (row-major over the array's dimensions, Stan's order of
 * an array's elements); log|J| is the sum of theirs. The elements' transforms run as one batched transform.
 */
export function arrayOf(inner: Constraint, arrayDims: readonly number[]): Constraint {
  return {
    name: `array of ${inner.name}`,
    bind(shape: Shape): Transform {
      const count = arrayDims.reduce((a, b) => a * b, 1);
      const t = inner.bind(shape.slice(arrayDims.length));
      const part = (u: Node, e: number) => slice(u, [{ start: e * t.unconstrainedSize, stop: (e + 1) * t.unconstrainedSize }]);
      const each = <T>(f: (e: number) => T): T[] => Array.from({ length: count }, (_, e) => f(e));
      const element = (x: Node, e: number) => index(reshape(x, [count, ...t.shape]), e);
      return {
        name: t.name,
        shape,
        constrainedSize: count * t.constrainedSize,
        unconstrainedSize: count * t.unconstrainedSize,
        forward: (u) => reshape(overRows((r) => t.forward(r), reshape(u, [count, t.unconstrainedSize]), count, () => stack(each((e) => t.forward(part(u, e))))), shape),
        inverse: (x) => reshape(overRows((r) => t.inverse(r), reshape(x, [count, ...t.shape]), count, () => stack(each((e) => t.inverse(element(x, e))))), [count * t.unconstrainedSize]),
        logJacobian: (u) => sum(overRows((r) => t.logJacobian(r), reshape(u, [count, t.unconstrainedSize]), count, () => stack(each((e) => t.logJacobian(part(u, e)))))),
      };
    },
  };
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
