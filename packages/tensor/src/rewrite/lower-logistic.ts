import { abs, add, div, exp, ge, gt, log1p, lt, neg, select, sub } from "../api/elementwise.ts";
import { rebuild } from "../graph/substitute.ts";
import { toposort } from "../graph/toposort.ts";
import { Node } from "../ir/node.ts";
import { mapScanBodies } from "./scan-bodies.ts";

const LOGISTIC = new Set(["sigmoid", "softplus", "log_sigmoid"]);

/**
 * The graph with sigmoid, softplus and log_sigmoid written in exp(−|x|), log1p and selects (scan
 * bodies included), the very formulas of the GLSL prelude's ppl_sigmoid and ppl_softplus, so the
 * same bits. A log density and its gradient hold these functions of one argument side by side (a
 * Bernoulli-logit term's log_sigmoid(t) and its derivative sigmoid(−t)): as graph nodes their
 * exp(−|t|) is one node, computed once where each function call computed its own.
 */
export function lowerLogisticFunctions(outputs: readonly Node[]): Node[] {
  if (!toposort(outputs).some((n) => LOGISTIC.has(n.op) || n.op === "scan")) return [...outputs];
  const inner = mapScanBodies(outputs, (body) => lowerLogisticFunctions(body));
  return rebuild(inner, (n, inputs) => {
    if (LOGISTIC.has(n.op)) return lowered(n.op, inputs[0]!);
    return inputs.every((x, k) => x === n.inputs[k]) ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs);
  });
}

// exp(−|x|), with |−y| taken as |y| (the same value) so that f(y) and g(−y) share it.
function expNegAbs(x: Node): Node {
  return exp(neg(abs(x.op === "neg" ? x.inputs[0]! : x)));
}

function lowered(op: string, x: Node): Node {
  const e = expNegAbs(x);
  switch (op) {
    // ppl_sigmoid: (x ≥ 0 ? 1 : e)/(1+e), one division where a select of two quotients took two.
    case "sigmoid": return div(select(ge(x, 0), 1, e), add(1, e));
    // ppl_softplus: l = log1p(e); x > 0 ? x + l : l.
    case "softplus": {
      const l = log1p(e);
      return select(gt(x, 0), add(x, l), l);
    }
    // ppl_log_sigmoid(x) = −softplus(−x): x < 0 ? x − l : −l (negation is exact, so the same bits).
    default: {
      const l = log1p(e);
      return select(lt(x, 0), sub(x, l), neg(l));
    }
  }
}
