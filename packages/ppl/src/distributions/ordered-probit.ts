import { logPhi, neg, type Operand } from "@ppl/tensor";
import { logPhiDiff } from "./composed-special.ts";
import type { Distribution } from "./distribution.ts";
import { orderedOf } from "./ordered-logistic.ts";
import { checkOperand } from "./helpers.ts";

/**
 * Stan's ordered_probit(eta, c): y ∈ 1..K with P(y ≤ k) = Φ(c_k − eta), for K − 1 increasing cutpoints
 * c (last axis); −∞ where the cutpoints are not strictly increasing.
 */
export function orderedProbit(eta: Operand, cutpoints: Operand): Distribution {
  checkOperand("orderedProbit", "eta", eta);
  checkOperand("orderedProbit", "cutpoints", cutpoints);
  return orderedOf("ordered_probit", "orderedProbit", eta, cutpoints, {
    lowest: (d) => logPhi(neg(d)),
    highest: (d) => logPhi(d),
    between: (a, b) => logPhiDiff(a, b),
    latent: (r) => r.normal(),
  });
}
