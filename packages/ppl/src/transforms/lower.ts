import { add, exp, log, reshape, sub, sum, type Operand, type Shape } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import { checkOperand } from "../model/arguments.ts";
import { checkBound, type Constraint, type Transform } from "./transform.ts";

/** x > a through x = a + exp(u); a may be a node (a bound that depends on other parameters). */
export function lower(a: Operand): Constraint {
  checkOperand("lower", "a", a);
  return {
    name: "lower",
    bind(shape: Shape): Transform {
      checkBound("lower", "lower", a, shape);
      const n = sizeOf(shape);
      return {
        name: "lower",
        shape,
        constrainedSize: n,
        unconstrainedSize: n,
        forward: (u) => add(a, exp(reshape(u, shape))),
        inverse: (x) => reshape(log(sub(x, a)), [n]),
        logJacobian: (u) => sum(u),
      };
    },
  };
}

/** x > 0 through x = exp(u). */
export function positive(): Constraint {
  const c = lower(0);
  return { name: "positive", bind: (shape) => ({ ...c.bind(shape), name: "positive" }) };
}
