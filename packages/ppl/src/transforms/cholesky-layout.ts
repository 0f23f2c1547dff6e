import { concat, constant, exp, gather, log, reshape, type Node } from "@ppl/tensor";

/**
 * Stan's layout of an M×N (M ≥ N) Cholesky factor in its unconstrained vector: row by row, the
 * entries on and below the diagonal, the diagonal ones stored as logs. Both maps are gathers, so
 * they render on every backend as they are.
 */
export interface CholeskyLayout {
  /** Length of the unconstrained vector, N(N+1)/2 + (M−N)N. */
  readonly size: number;
  /** The lower-triangular M×N factor with positive diagonal from an unconstrained vector [size]. */
  factor(u: Node): Node;
  /** The unconstrained vector [size] of an M×N factor (its diagonal logged). */
  free(l: Node): Node;
  /** The diagonal's logs, u at the diagonal positions [N]. */
  logDiagonal(u: Node): Node;
}

/** The gathers between an M×N lower-triangular factor and Stan's unconstrained vector of it. */
export function choleskyLayout(m: number, n: number): CholeskyLayout {
  const diagPos: number[] = []; // positions of the diagonal entries in u
  const freeFlat: number[] = []; // row-major flat position in the factor of each entry of u
  for (let i = 0; i < m; i++) {
    for (let j = 0; j <= Math.min(i, n - 1); j++) {
      if (i === j) diagPos.push(freeFlat.length);
      freeFlat.push(i * n + j);
    }
  }
  const size = freeFlat.length;
  // factor: gather from [u, exp(u at the diagonal), 0]; only the diagonal is exponentiated, so a
  // large off-diagonal value cannot overflow into the matrix.
  const toFactor = new Array<number>(m * n).fill(size + n);
  freeFlat.forEach((f, k) => (toFactor[f] = k));
  diagPos.forEach((k, d) => (toFactor[freeFlat[k]!] = size + d));
  // free: gather from [flat factor, log(diagonal)].
  const toFree = freeFlat.map((f) => f);
  diagPos.forEach((k, d) => (toFree[k] = m * n + d));
  const diagNode = constant(diagPos, [n], "i32");
  const diagFlatNode = constant(diagPos.map((k) => freeFlat[k]!), [n], "i32");
  const toFactorNode = constant(toFactor, [m, n], "i32");
  const toFreeNode = constant(toFree, [size], "i32");
  const logDiagonal = (u: Node) => gather(u, diagNode);
  return {
    size,
    logDiagonal,
    factor: (u) => gather(concat([u, exp(logDiagonal(u)), constant(0, [1])]), toFactorNode),
    free: (l) => {
      const flat = reshape(l, [m * n]);
      return gather(concat([flat, log(gather(flat, diagFlatNode))]), toFreeNode);
    },
  };
}
