import { add, concat, constant, gather, index, reshape, slice, stack, type Node, type Shape } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import { simplex } from "./simplex.ts";
import type { Constraint, Transform } from "./transform.ts";

/** Stan's row_stochastic_matrix[R, C]: every row a C-simplex by simplex()'s stick-breaking, from an R×(C−1) matrix of values (column-major, as Stan's). */
export function rowStochastic(): Constraint {
  return stochastic("row_stochastic", "rowStochastic", 0);
}

/** Stan's column_stochastic_matrix[R, C]: every column an R-simplex by simplex()'s stick-breaking, from an (R−1)×C matrix of values (column-major, as Stan's). */
export function columnStochastic(): Constraint {
  return stochastic("column_stochastic", "columnStochastic", 1);
}

// One simplex transform per row (axis 0) or column (axis 1), each reading its own entries of u;
// log|J| is the sum of theirs, since the entries are disjoint. Stan lays the unconstrained values
// out as a matrix in column-major order, so a column's are contiguous and a row's are strided.
function stochastic(name: string, fn: string, axis: 0 | 1): Constraint {
  return {
    name,
    bind(shape: Shape): Transform {
      if (shape.length !== 2 || shape[0]! < 1 || shape[1]! < 1 || shape[1 - axis]! < 2) {
        const what = axis === 0 ? "rows of length ≥ 2" : "columns of length ≥ 2";
        throw new ModelError(`${fn}: needs a matrix parameter with ${what}, got shape [${shape.join(",")}]; pass { shape: [R, C] }`);
      }
      const count = shape[axis]!; // how many simplexes
      const k = shape[1 - axis]!; // the length of each
      const t = simplex().bind([k]);
      const each = <T>(f: (s: number) => T) => Array.from({ length: count }, (_, s) => f(s));
      const rowEntries = each((s) => constant(Array.from({ length: k - 1 }, (_, b) => b * count + s), [k - 1], "i32"));
      const part = (u: Node, s: number) => (axis === 0 ? gather(u, rowEntries[s]!) : slice(u, [{ start: s * (k - 1), stop: (s + 1) * (k - 1) }]));
      const frees = (x: Node) => each((s) => t.inverse(index(x, s, axis)));
      return {
        name,
        shape,
        constrainedSize: count * k,
        unconstrainedSize: count * (k - 1),
        forward: (u) => stack(each((s) => t.forward(part(u, s))), axis),
        inverse: (x) => (axis === 0 ? reshape(stack(frees(x), 1), [count * (k - 1)]) : concat(frees(x))),
        logJacobian: (u) => each((s) => t.logJacobian(part(u, s))).reduce((a, b) => add(a, b)),
      };
    },
  };
}
