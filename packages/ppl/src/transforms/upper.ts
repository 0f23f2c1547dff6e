import { exp, log, reshape, sub, sum, type Operand, type Shape } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import { checkOperand } from "../model/arguments.ts";
import { checkBound, type Constraint, type Transform } from "./transform.ts";

/** x < b through x = b − exp(u); b may be a node. */
export function upper(b: Operand): Constraint {
  checkOperand("upper", "b", b);
  return {
    name: "upper",
    bind(shape: Shape): Transform {
      checkBound("upper", "upper", b, shape);
      const n = sizeOf(shape);
      return {
        name: "upper",
        shape,
        constrainedSize: n,
        unconstrainedSize: n,
        forward: (u) => sub(b, exp(reshape(u, shape))),
        inverse: (x) => reshape(log(sub(b, x)), [n]),
        logJacobian: (u) => sum(u),
      };
    },
  };
}
