import { add, broadcastTo, log, logSigmoid, mul, neg, reshape, sigmoid, sub, sum, type Operand, type Shape } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import { checkOperand } from "../model/arguments.ts";
import { ModelError } from "../model/errors.ts";
import { boundOrderFix, checkBound, type Constraint, type Transform } from "./transform.ts";

/** a < x < b through x = a + (b − a)·sigmoid(u); either bound may be a node (garch's beta1 < 1 − alpha1). */
export function interval(a: Operand, b: Operand): Constraint {
  checkOperand("interval", "a", a);
  checkOperand("interval", "b", b);
  if (typeof a === "number" && typeof b === "number" && !(a < b)) {
    throw new ModelError(`interval: the lower bound ${a} must be below the upper bound ${b}; ${boundOrderFix(a, b)}`);
  }
  return {
    name: "interval",
    bind(shape: Shape): Transform {
      checkBound("interval", "lower", a, shape);
      checkBound("interval", "upper", b, shape);
      const n = sizeOf(shape);
      const width = sub(b, a);
      return {
        name: "interval",
        shape,
        constrainedSize: n,
        unconstrainedSize: n,
        forward: (u) => add(a, mul(width, sigmoid(reshape(u, shape)))),
        inverse: (x) => reshape(sub(log(sub(x, a)), log(sub(b, x))), [n]),
        // log(b − a) + log σ(u) + log σ(−u), summed over the parameter's entries.
        logJacobian: (u) => {
          const v = reshape(u, shape);
          return sum(add(broadcastTo(log(width), shape), add(logSigmoid(v), logSigmoid(neg(v)))));
        },
      };
    },
  };
}

/** 0 < x < 1 through the logistic function. */
export function unitInterval(): Constraint {
  const c = interval(0, 1);
  return { name: "unit_interval", bind: (shape) => ({ ...c.bind(shape), name: "unit_interval" }) };
}
