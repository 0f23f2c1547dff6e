import {
  add, broadcastTo, erfc, exp, expm1, reciprocal, gt, le, lgamma, lift, log, log1p, logsumexp, lt, maximum, minimum, mul, neg, select, square, stack, sub, type Node, type Operand,
} from "@ppl/tensor";
import { HALF_LOG_TWO_PI } from "./helpers.ts";

/**
 * Special functions composed from the tensor layer's ops, so that the densities that use them run
 * unchanged on the CPU and in GLSL and are differentiated by the ordinary rules. Every branch is
 * evaluated, so each one's input is clamped into the range where it is used: the branch that is not
 * taken then has finite values and gradients, and select's zero gradient to it stays zero (not NaN).
 */

// Below this, log Φ comes from its asymptotic series (erfc(−x/√2) would underflow in f32 soon after).
const LOG_PHI_TAIL = -10;
// (2k − 1)!! for k = 1..12: the asymptotic series of Φ(x)·√(2π)·(−x)·e^{x²/2} = Σ (−1)^k (2k − 1)!!/x^{2k}.
const DOUBLE_FACTORIALS = [1, 3, 15, 105, 945, 10395, 135135, 2027025, 34459425, 654729075, 13749310575, 316234143225];

/** log Φ(x), the log of the standard normal CDF, accurate in both tails. */
export function logPhi(x: Operand): Node {
  const xn = lift(x);
  // x > 0: log(1 − Q(x)) through log1p, so that values near 0 keep their digits.
  const xp = maximum(xn, 0);
  const upper = log1p(mul(-0.5, erfc(mul(xp, Math.SQRT1_2))));
  // LOG_PHI_TAIL ≤ x ≤ 0: log(erfc(−x/√2)/2) directly.
  const xm = minimum(maximum(xn, LOG_PHI_TAIL), 0);
  const middle = log(mul(0.5, erfc(mul(neg(xm), Math.SQRT1_2))));
  // x < LOG_PHI_TAIL: −x²/2 − log(−x) − log √(2π) + log(1 + Σ_k (−1)^k (2k−1)!! x^{−2k}), error below 1e−13.
  const xt = minimum(xn, LOG_PHI_TAIL);
  const t = reciprocal(square(xt));
  let series: Node = lift(0);
  for (let k = DOUBLE_FACTORIALS.length; k >= 1; k--) series = mul(t, add((k % 2 === 0 ? 1 : -1) * DOUBLE_FACTORIALS[k - 1]!, series));
  const tail = add(sub(sub(mul(-0.5, square(xt)), log(neg(xt))), HALF_LOG_TWO_PI), log1p(series));
  return select(gt(xn, 0), upper, select(lt(xn, LOG_PHI_TAIL), tail, middle));
}

/** log(Φ(a) − Φ(b)) for a ≥ b, computed in whichever tail keeps the difference accurate. */
export function logPhiDiff(a: Operand, b: Operand): Node {
  const an = lift(a), bn = lift(b);
  // Both above 0: Φ(a) − Φ(b) = Φ(−b) − Φ(−a), a difference of small numbers. Otherwise the lower tail.
  const upperSide = gt(bn, 0);
  const au = select(upperSide, an, 2), bu = select(upperSide, bn, 1);
  const al = select(upperSide, 0, an), bl = select(upperSide, -1, bn);
  const lu = logPhi(neg(bu));
  const up = add(lu, log1mExp(sub(logPhi(neg(au)), lu)));
  const ll = logPhi(al);
  const low = add(ll, log1mExp(sub(logPhi(bl), ll)));
  return select(upperSide, up, low);
}

/** log(1 − eˣ) for x ≤ 0 (Mächler's split: log(−expm1 x) near 0, log1p(−eˣ) below −log 2). */
export function log1mExp(x: Operand): Node {
  const xn = lift(x);
  // The near branch's input stays below 0 (by an amount f32 can hold) so that its log is finite when the far branch is taken.
  const near = minimum(maximum(xn, -Math.LN2), -1e-30);
  const far = minimum(xn, -Math.LN2);
  return select(gt(xn, -Math.LN2), log(neg(expm1(near))), log1p(neg(exp(far))));
}

/** log(eᵃ + eᵇ), with −∞ operands allowed. */
export function logAddExp(a: Operand, b: Operand): Node {
  const an = lift(a), bn = lift(b);
  const { shape } = add(an, bn);
  return logsumexp(stack([broadcastTo(an, shape), broadcastTo(bn, shape)], -1), -1);
}

// The series of I0 up to its term t^{36}/(36!)² serves κ ≤ 20 (relative error below 1e−15); above, the asymptotic series.
const BESSEL_SPLIT = 20;
const BESSEL_SERIES_TERMS = 36;
const BESSEL_ASYMPTOTIC_TERMS = 20;

/** log I₀(κ), the log of the modified Bessel function of the first kind of order 0, for κ ≥ 0. */
export function logBesselI0(kappa: Operand): Node {
  const k = lift(kappa);
  // κ ≤ 20: I0(κ) = Σ_j (κ²/4)^j / (j!)², all terms positive, by Horner's rule in κ²/4.
  const ks = minimum(k, BESSEL_SPLIT);
  const t = mul(0.25, square(ks));
  let s: Node = lift(inverseFactorialSquared(BESSEL_SERIES_TERMS));
  for (let j = BESSEL_SERIES_TERMS - 1; j >= 0; j--) s = add(mul(s, t), inverseFactorialSquared(j));
  const small = log(s);
  // κ > 20: I0(κ) = e^κ/√(2πκ) · Σ_j a_j κ^{−j}, a_j = ((2j − 1)!!)²/(j! 8^j) (Abramowitz and Stegun 9.7.1).
  const kl = maximum(k, BESSEL_SPLIT);
  const inv = reciprocal(kl);
  const a = [1];
  for (let j = 1; j <= BESSEL_ASYMPTOTIC_TERMS; j++) a.push((a[j - 1]! * (2 * j - 1) ** 2) / (8 * j));
  let p: Node = lift(a[BESSEL_ASYMPTOTIC_TERMS]!);
  for (let j = BESSEL_ASYMPTOTIC_TERMS - 1; j >= 0; j--) p = add(mul(p, inv), a[j]!);
  const large = add(sub(kl, mul(0.5, log(mul(2 * Math.PI, kl)))), log(p));
  return select(le(k, BESSEL_SPLIT), small, large);
}

/** log Γ_K(a), the multivariate gamma function: K(K − 1)/4 log π + Σ_{j=1..K} lgamma(a + (1 − j)/2). */
export function lmgamma(k: number, a: Operand): Node {
  let s: Node = lift((k * (k - 1) / 4) * Math.log(Math.PI));
  for (let j = 1; j <= k; j++) s = add(s, lgamma(add(a, (1 - j) / 2)));
  return s;
}

function inverseFactorialSquared(j: number): number {
  let f = 1;
  for (let i = 2; i <= j; i++) f *= i;
  return 1 / (f * f);
}
