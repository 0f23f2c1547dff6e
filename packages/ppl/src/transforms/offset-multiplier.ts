import { add, broadcastTo, div, log, mul, reshape, sub, sum, type Operand, type Shape } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import { checkOperand } from "../model/arguments.ts";
import { ModelError } from "../model/errors.ts";
import { checkBound, type Constraint, type Transform } from "./transform.ts";

/**
 * Stan's offset/multiplier: x = offset + multiplier·u, log|J| = Σ log(multiplier). Either may be a
 * node of other parameters, which gives the non-centred parameterisation of x ~ normal(mu, tau)
 * with offsetMultiplier(mu, tau); the multiplier must be positive.
 */
export function offsetMultiplier(offset: Operand = 0, multiplier: Operand = 1): Constraint {
  checkOperand("offsetMultiplier", "offset", offset);
  checkOperand("offsetMultiplier", "multiplier", multiplier);
  if (typeof multiplier === "number" && !(multiplier > 0 && Number.isFinite(multiplier))) {
    throw new ModelError(`offsetMultiplier: the multiplier ${multiplier} must be positive and finite`);
  }
  if (typeof offset === "number" && !Number.isFinite(offset)) {
    throw new ModelError(`offsetMultiplier: the offset ${offset} must be finite`);
  }
  return {
    name: "offset_multiplier",
    bind(shape: Shape): Transform {
      checkBound("offsetMultiplier", "offset", offset, shape);
      checkBound("offsetMultiplier", "multiplier", multiplier, shape);
      const n = sizeOf(shape);
      return {
        name: "offset_multiplier",
        shape,
        constrainedSize: n,
        unconstrainedSize: n,
        forward: (u) => add(offset, mul(multiplier, reshape(u, shape))),
        inverse: (x) => reshape(div(sub(x, offset), multiplier), [n]),
        logJacobian: () => sum(broadcastTo(log(multiplier), shape)),
      };
    },
  };
}
