import { log1mInvLogit, log1p, logInvLogit, logSumExp, neg, sigmoid, sub, type Node, type Operand } from "@ppl/tensor";
import { logAddExp } from "./composed-special.ts";
import { checkParam, isFiniteNumber, isProbability, logOf } from "./helpers.ts";

/**
 * The probability θ of the zero of a zero-inflated or hurdle family, in the forms its log density,
 * moments and sampler read, given either as θ itself or as its logit α = log(θ/(1 − θ)). From the
 * logit, log θ and log(1 − θ) are log σ(α) and log σ(−α), exact in f64 at any α, where
 * log(1 − σ(α)) is off by 0.04 at α = 36 and −∞ from 38 on.
 */
export interface ZeroWeight {
  /** The argument as given (θ or α), for the sampler's parameter values. */
  readonly param: Operand;
  /** log θ */
  readonly logZero: Operand;
  /** log(1 − θ) */
  readonly logKeep: Node;
  /** θ */
  readonly zero: Operand;
  /** 1 − θ */
  readonly keep: Node;
  /** θ from one value of the argument, for a draw. */
  readonly probability: (v: number) => number;
  /** log(eᵃ + eᵇ), for the two ways to a zero of a zero-inflated family (a = log θ, b = log(1 − θ) + log p(0)). */
  readonly logSum: (a: Operand, b: Operand) => Node;
}

/** θ given as a probability in [0, 1], checked as `name` of `dist`. */
export function probabilityWeight(dist: string, name: string, theta: Operand): ZeroWeight {
  checkParam(dist, name, theta, isProbability, "in [0, 1]");
  const logZero = logOf(theta), logKeep = log1p(neg(theta));
  return {
    param: theta, logZero, logKeep, zero: theta, keep: sub(1, theta), probability: (v) => v,
    // log(1 − θ) from θ is only as exact as θ's rounding, so the stacked logsumexp serves (the graph
    // these families have always had); the logit form takes the exact two-term sum.
    logSum: logAddExp,
  };
}

/** θ given by its logit, a finite real, checked as `name` of `dist`. */
export function logitWeight(dist: string, name: string, alpha: Operand): ZeroWeight {
  checkParam(dist, name, alpha, isFiniteNumber, "finite");
  return {
    param: alpha,
    logZero: logInvLogit(alpha),
    logKeep: log1mInvLogit(alpha),
    zero: sigmoid(alpha),
    keep: sigmoid(neg(alpha)),
    probability: inverseLogit,
    // max + log1p(e^{−gap}): the smaller term keeps its digits (e^{−40}·e^{−λ} at alpha = 40).
    logSum: logSumExp,
  };
}

/** σ(a) = 1/(1 + e^{−a}) without overflow of e^{−a}. */
export function inverseLogit(a: number): number {
  if (a >= 0) return 1 / (1 + Math.exp(-a));
  const e = Math.exp(a);
  return e / (1 + e);
}
