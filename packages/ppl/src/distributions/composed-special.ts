import {
  add, broadcastTo, constant, gt, le, lgamma, log, log1mExp, logPhi, logsumexp, lt, mul, neg, reshape, select, square, stack,
  sub, type Node, type Operand,
} from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";

/**
 * Special functions composed from the tensor layer's ops, so that the densities that use them run
 * unchanged on the CPU and in GLSL and are differentiated by the ordinary rules. Every branch is
 * evaluated, so each one's input is clamped into the range where it is used: the branch that is not
 * taken then has finite values and gradients, and select's zero gradient to it stays zero (not NaN).
 */

// x clamped to [lo, hi] with select, not max/min, whose gradient splits at a tie: at the clamp point
// the branch that is taken must see the whole gradient of x.
function clamp(x: Node, lo: number, hi: number): Node {
  return select(lt(x, lo), lo, select(gt(x, hi), hi, x));
}

/** log(Φ(a) − Φ(b)) for a ≥ b, computed in the lower tail, where the difference keeps its digits. */
export function logPhiDiff(a: Operand, b: Operand): Node {
  const an = lift(a), bn = lift(b);
  // Above 0, Φ(a) − Φ(b) = Φ(−b) − Φ(−a): the same difference moved into the lower tail, where both
  // terms are small and accurate. The pair is chosen before log Φ, so it is evaluated twice, not four times.
  const flip = gt(bn, 0);
  const hi = select(flip, neg(bn), an);
  const lo = select(flip, neg(an), bn);
  const lh = logPhi(hi);
  return add(lh, log1mExp(sub(logPhi(lo), lh)));
}

/** log(eᵃ + eᵇ), with −∞ operands allowed. */
export function logAddExp(a: Operand, b: Operand): Node {
  const an = lift(a), bn = lift(b);
  const { shape } = add(an, bn);
  return logsumexp(stack([broadcastTo(an, shape), broadcastTo(bn, shape)], -1), -1);
}

// The power series of I0 up to its term t^{36}/(36!)² serves κ ≤ 20 (relative error below 1e−15); above it, the asymptotic series.
const BESSEL_SPLIT = 20;
const BESSEL_SERIES_TERMS = 36;
const BESSEL_ASYMPTOTIC_TERMS = 20;
// log of the series' coefficients: −2 log j! for the power series, log(((2j − 1)!!)²/(j! 8^j)) for the asymptotic one.
const SERIES_LOG_COEFFICIENTS = Array.from({ length: BESSEL_SERIES_TERMS + 1 }, (_, j) => -2 * logFactorial(j));
const ASYMPTOTIC_LOG_COEFFICIENTS = asymptoticLogCoefficients(BESSEL_ASYMPTOTIC_TERMS);

/**
 * log I₀(κ), the log of the modified Bessel function of the first kind of order 0, for κ ≥ 0. Both
 * series have positive terms, so each is one logsumexp over its terms' logs (j·log t + log c_j): no
 * term overflows in f32, and the graph is one reduction rather than a chain of Horner steps.
 */
export function logBesselI0(kappa: Operand): Node {
  const k = lift(kappa);
  // κ's log with a trailing axis, against the vector of the terms' powers.
  const axis = (x: Node) => reshape(x, [...x.shape, 1]);
  // κ ≤ 20: I0(κ) = Σ_j (κ²/4)^j / (j!)²; κ clamped away from 0 so that log t is finite (its terms past j = 0 vanish there).
  const ks = clamp(k, 1e-15, BESSEL_SPLIT);
  const logT = log(mul(0.25, square(ks)));
  const powers = constant(SERIES_LOG_COEFFICIENTS.map((_, j) => j), [BESSEL_SERIES_TERMS + 1]);
  const small = logsumexp(add(mul(axis(logT), powers), constant(SERIES_LOG_COEFFICIENTS, [BESSEL_SERIES_TERMS + 1])), -1);
  // κ > 20: I0(κ) = e^κ/√(2πκ) · Σ_j a_j κ^{−j} (Abramowitz and Stegun 9.7.1).
  const kl = clamp(k, BESSEL_SPLIT, Infinity);
  const logK = log(kl);
  const inverse = constant(ASYMPTOTIC_LOG_COEFFICIENTS.map((_, j) => -j), [BESSEL_ASYMPTOTIC_TERMS + 1]);
  const sum = logsumexp(add(mul(axis(logK), inverse), constant(ASYMPTOTIC_LOG_COEFFICIENTS, [BESSEL_ASYMPTOTIC_TERMS + 1])), -1);
  const large = add(sub(kl, mul(0.5, add(logK, Math.log(2 * Math.PI)))), sum);
  return select(le(k, BESSEL_SPLIT), small, large);
}

/** log Γ_K(a), the multivariate gamma function: K(K − 1)/4 log π + Σ_{j=1..K} lgamma(a + (1 − j)/2). */
export function lmgamma(k: number, a: Operand): Node {
  let s: Node = lift((k * (k - 1) / 4) * Math.log(Math.PI));
  for (let j = 1; j <= k; j++) s = add(s, lgamma(add(a, (1 - j) / 2)));
  return s;
}

function logFactorial(j: number): number {
  let s = 0;
  for (let i = 2; i <= j; i++) s += Math.log(i);
  return s;
}

function asymptoticLogCoefficients(n: number): number[] {
  const out = [0];
  for (let j = 1; j <= n; j++) out.push(out[j - 1]! + 2 * Math.log(2 * j - 1) - Math.log(8 * j));
  return out;
}
