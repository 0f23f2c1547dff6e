import { floatOf } from "../ir/dtype.ts";
import type { Node } from "../ir/node.ts";
import { add, cast, eq, exp, ge, log, log1p, logSigmoid, lt, neg, select, softplus, stopGradient, sub } from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";
import { max, sum } from "./reduce.ts";

/**
 * Arithmetic on the log scale, under Stan's names for the same functions (log_inv_logit,
 * log1m_inv_logit, log1p_exp, log_sum_exp, log_mix, log_softmax). Each keeps its relative precision
 * where the naive composition loses it: log(sigmoid(x)) is −∞ below x ≈ −745 and log(1 − sigmoid(x))
 * is off by 0.04 at x = 36 (and −∞ from 38 on) in f64, where these forms are exact to a few ulp.
 */

function floatNode(x: Operand): Node {
  const n = lift(x);
  return cast(n, floatOf(n.dtype));
}

/** log σ(x) = −log(1 + e^{−x}), Stan's log_inv_logit: the log of the probability whose logit is x. */
export function logInvLogit(x: Operand): Node {
  return logSigmoid(floatNode(x));
}

/** log(1 − σ(x)) = log σ(−x), Stan's log1m_inv_logit: the log of the complement of the probability whose logit is x. */
export function log1mInvLogit(x: Operand): Node {
  return logSigmoid(neg(floatNode(x)));
}

/** log(1 + eˣ), Stan's log1p_exp (softplus): x + log(1 + e^{−x}) above 0, so no overflow. */
export function log1pExp(x: Operand): Node {
  return softplus(floatNode(x));
}

/**
 * log(eᵃ + eᵇ) elementwise, Stan's two-argument log_sum_exp: max(a, b) + log1p(e^{−|a − b|}), so a
 * term far below the other still counts with its own relative precision (the reduction logsumexp
 * adds 1 + e^{gap} before its log and loses it); −∞ when both are.
 */
export function logSumExp(a: Operand, b: Operand): Node {
  const an = floatNode(a), bn = floatNode(b);
  // Which is larger is chosen by select, not max/min: at a tie the gradient of each is then whole on
  // its side, and the result's is split by σ(0) = ½, as it should be.
  const aFirst = ge(an, bn);
  const hi = select(aFirst, an, bn);
  const lo = select(aFirst, bn, an);
  // Both −∞: the gap −∞ − (−∞) is NaN; read it as −∞ (the smaller term adds nothing), so the sum is −∞.
  const gap = select(eq(hi, -Infinity), -Infinity, sub(lo, hi));
  return add(hi, softplus(gap));
}

/** log(θ eᵃ + (1 − θ) eᵇ), Stan's log_mix: the log density of a two-component mixture with weight θ ∈ [0, 1] on the first. */
export function logMix(theta: Operand, a: Operand, b: Operand): Node {
  const t = floatNode(theta);
  return logSumExp(add(log(t), a), add(log1p(neg(t)), b));
}

/**
 * log softmax along one axis, x − log Σ eˣ, Stan's log_softmax. The sum is taken as 1 plus the rest
 * (the largest entries' count less one, then the others' e^{x − max}) through log1p, so the largest
 * entry's log probability keeps its relative precision (−e^{−80} for logits (40, −40), not 0).
 */
export function logSoftmax(x: Operand, axis = -1): Node {
  const xn = floatNode(x);
  // The shift does not change the value, so it carries no gradient: the ties' e^0 terms below carry it.
  const d = sub(xn, stopGradient(max(xn, axis, true)));
  const e = exp(d);
  // Σ over the largest entries is their count (e^0 = 1 each), so count − 1 is exact.
  const top = sum(select(eq(d, 0), e, 0), axis, true);
  const rest = sum(select(lt(d, 0), e, 0), axis, true);
  return sub(d, log1p(add(sub(top, 1), rest)));
}
