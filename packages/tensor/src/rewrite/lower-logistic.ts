import { abs, add, div, exp, ge, gt, log1p, lt, neg, select, sub } from "../api/elementwise.ts";
import type { Node } from "../ir/node.ts";
import { lowerOps, type Lowering } from "./lower-ops.ts";

/**
 * The graph with sigmoid, softplus and log_sigmoid written in exp(−|x|), log1p and selects (scan
 * bodies included), the very formulas of the GLSL prelude's ppl_sigmoid and ppl_softplus, so the
 * same bits. A log density and its gradient hold these functions of one argument side by side (a
 * Bernoulli-logit term's log_sigmoid(t) and its derivative sigmoid(−t)): as graph nodes their
 * exp(−|t|) is one node, computed once where each function call computed its own.
 */
export function lowerLogisticFunctions(outputs: readonly Node[]): Node[] {
  return lowerOps(outputs, LOGISTIC_LOWERINGS);
}

// exp(−|x|), with |−y| taken as |y| (the same value) so that f(y) and g(−y) share it.
function expNegAbs(x: Node): Node {
  return exp(neg(abs(x.op === "neg" ? x.inputs[0]! : x)));
}

/** sigmoid, softplus and log_sigmoid in exp(−|x|), log1p and selects (lowerOps' table). */
export const LOGISTIC_LOWERINGS: Readonly<Record<string, Lowering>> = {
  // ppl_sigmoid: x ≥ 0 ? 1/(1+e) : e/(1+e).
  sigmoid: (_, [x]) => {
    const e = expNegAbs(x!);
    return select(ge(x!, 0), div(1, add(1, e)), div(e, add(1, e)));
  },
  // ppl_softplus: l = log1p(e); x > 0 ? x + l : l.
  softplus: (_, [x]) => {
    const l = log1p(expNegAbs(x!));
    return select(gt(x!, 0), add(x!, l), l);
  },
  // ppl_log_sigmoid(x) = −softplus(−x): x < 0 ? x − l : −l (negation is exact, so the same bits).
  log_sigmoid: (_, [x]) => {
    const l = log1p(expNegAbs(x!));
    return select(lt(x!, 0), sub(x!, l), neg(l));
  },
};
