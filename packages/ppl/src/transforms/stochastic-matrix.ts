import { add, concat, index, slice, stack, type Node, type Shape } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import { simplex } from "./simplex.ts";
import type { Constraint, Transform } from "./transform.ts";

/** Stan's row_stochastic_matrix[R, C]: every row a C-simplex by simplex()'s stick-breaking, R(C−1) values row by row. */
export function rowStochastic(): Constraint {
  return stochastic("row_stochastic", "rowStochastic", 0);
}

/** Stan's column_stochastic_matrix[R, C]: every column an R-simplex by simplex()'s stick-breaking, (R−1)C values column by column. */
export function columnStochastic(): Constraint {
  return stochastic("column_stochastic", "columnStochastic", 1);
}

// One simplex transform per row (axis 0) or column (axis 1), each reading its own slice of u;
// log|J| is the sum of theirs, since the slices are disjoint.
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
      const part = (u: Node, s: number) => slice(u, [{ start: s * (k - 1), stop: (s + 1) * (k - 1) }]);
      const each = <T>(f: (s: number) => T) => Array.from({ length: count }, (_, s) => f(s));
      return {
        name,
        shape,
        constrainedSize: count * k,
        unconstrainedSize: count * (k - 1),
        forward: (u) => stack(each((s) => t.forward(part(u, s))), axis),
        inverse: (x) => concat(each((s) => t.inverse(index(x, s, axis)))),
        logJacobian: (u) => each((s) => t.logJacobian(part(u, s))).reduce((a, b) => add(a, b)),
      };
    },
  };
}
