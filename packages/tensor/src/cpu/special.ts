import betaincFn from "@stdlib/math-base-special-betainc";
import erfcFn from "@stdlib/math-base-special-erfc";
import erfcinvFn from "@stdlib/math-base-special-erfcinv";
import gammaincFn from "@stdlib/math-base-special-gammainc";
import gammaln from "@stdlib/math-base-special-gammaln";
import digamma from "@stdlib/math-base-special-digamma";

/**
 * Scalar kernels of the CDF special functions (inv_phi, gamma_p, gamma_q, owens_t, betainc) in
 * f64, shared by the reference interpreter and the compiled CPU path. The incomplete gamma and
 * beta functions and the inverse of erfc come from stdlib (Boost's algorithms); Owen's T is the
 * quadrature that shaders/prelude/cdf.glsl evaluates as well, so the two backends agree by design.
 */

/** Φ⁻¹(p), the standard normal quantile: −√2·erfc⁻¹(2p), accurate in both tails. */
export function invPhi(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  return -Math.SQRT2 * erfcinvFn(2 * p);
}

/** Regularised lower incomplete gamma P(a, x) for a > 0, x ≥ 0 (NaN elsewhere). */
export function gammaP(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) return NaN;
  return gammaincFn(x, a, true, false);
}

/** Regularised upper incomplete gamma Q(a, x) = 1 − P(a, x), accurate where it is small. */
export function gammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) return NaN;
  return gammaincFn(x, a, true, true);
}

/** Regularised incomplete beta I_x(a, b) for a, b > 0 and 0 ≤ x ≤ 1 (NaN elsewhere). */
export function betainc(a: number, b: number, x: number): number {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) return NaN;
  return betaincFn(x, a, b, true, false);
}

// 32-point Gauss–Legendre rule on [−1, 1]: the positive nodes and their weights.
const GL_X = [
  0.048307665687738324, 0.1444719615827965, 0.23928736225213706, 0.33186860228212767, 0.42135127613063533,
  0.5068999089322294, 0.5877157572407623, 0.6630442669302152, 0.7321821187402897, 0.7944837959679424,
  0.84936761373257, 0.8963211557660521, 0.9349060759377397, 0.9647622555875064, 0.9856115115452684,
  0.9972638618494816,
];
const GL_W = [
  0.09654008851472766, 0.09563872007927471, 0.09384439908080451, 0.09117387869576378, 0.08765209300440378,
  0.08331192422694671, 0.07819389578707023, 0.07234579410884834, 0.06582222277636168, 0.058684093478535565,
  0.05099805926237609, 0.042835898022226836, 0.034273862913021765, 0.025392065309262024, 0.016274394730905743,
  0.007018610009470506,
];
const TWO_PI = 2 * Math.PI;
// Beyond x = OWENS_CUT / h the integrand is below exp(−OWENS_CUT²/2) ≈ 2e−22 of its value at 0.
const OWENS_CUT = 10;

// (1/2π)∫₀ᵃ exp(−h²(1+x²)/2)/(1+x²) dx for h ≥ 0 and 0 ≤ a ≤ 1, over the part of [0, a] where the
// integrand is not negligible, so the Gaussian factor spans at most ten standard deviations of the rule.
function owensTQuadrature(h: number, a: number): number {
  const u = h * a > OWENS_CUT ? OWENS_CUT / h : a;
  const half = 0.5 * u;
  let s = 0;
  for (let k = 0; k < GL_X.length; k++) {
    for (const x of [half * (1 - GL_X[k]!), half * (1 + GL_X[k]!)]) {
      const q = 1 + x * x;
      s += (GL_W[k]! * Math.exp(-0.5 * h * h * q)) / q;
    }
  }
  return (s * half) / TWO_PI;
}

/** Upper normal tail Q(z) = 1 − Φ(z) = erfc(z/√2)/2, accurate where it is small. */
function upperTail(z: number): number {
  return 0.5 * erfcFn(z * Math.SQRT1_2);
}

/**
 * Owen's T function T(h, a) = (1/2π)∫₀ᵃ exp(−h²(1+x²)/2)/(1+x²) dx. T is even in h and odd in a;
 * for |a| > 1 the identity T(h, a) = ½Q(h) + ½Q(ah) − Q(h)Q(ah) − T(ah, 1/a) (with upper tails Q,
 * which do not cancel for large h) maps the integral back onto [0, 1].
 */
export function owensT(h: number, a: number): number {
  if (Number.isNaN(h) || Number.isNaN(a)) return NaN;
  const sgn = a < 0 ? -1 : 1;
  const ah0 = Math.abs(a);
  const hh = Math.abs(h);
  if (ah0 === 0) return 0;
  if (hh === Infinity) return 0;
  if (ah0 <= 1) return sgn * owensTQuadrature(hh, ah0);
  if (hh === 0) return (sgn * Math.atan(ah0)) / TWO_PI;
  const qh = upperTail(hh);
  const ahh = ah0 * hh;
  const qah = upperTail(ahh);
  const rest = ah0 === Infinity ? 0 : owensTQuadrature(ahh, 1 / ah0);
  return sgn * (0.5 * qh + 0.5 * qah - qh * qah - rest);
}

/**
 * ∂P(a, x)/∂a, the derivative of the regularised lower incomplete gamma function in its shape.
 * For x < a + 1 the derivative of P's power series term by term:
 *   ∂P/∂a = P·(log x − ψ(a+1)) − x^a e^(−x)/Γ(a+1) · Σₙ sₙ Hₙ,  sₙ = xⁿ/((a+1)…(a+n)), Hₙ = Σₖ≤ₙ 1/(a+k),
 * whose second sum has only positive terms; elsewhere −∂Q/∂a, with Q's continued fraction
 * differentiated in a alongside its value (forward mode through the Lentz iterations), so that
 * the derivative keeps Q's relative accuracy in the upper tail.
 */
export function gammaPDa(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) return NaN;
  if (x === 0 || x === Infinity) return 0;
  const logx = Math.log(x);
  if (x < a + 1) {
    let s = 1, sum = 1, h = 0, sumH = 0;
    for (let n = 1; n < 100000; n++) {
      h += 1 / (a + n);
      s *= x / (a + n);
      sum += s;
      sumH += s * h;
      if (s < sum * 1e-17 && s * h < sumH * 1e-17) break;
    }
    const pref = Math.exp(a * logx - x - gammaln(a + 1));
    return pref * (sum * (logx - digamma(a + 1)) - sumH);
  }
  const { value, derivative } = gammaQFraction(a, x);
  const pref = Math.exp(a * logx - x - gammaln(a));
  const dq = pref * (value * (logx - digamma(a)) + derivative);
  return -dq;
}

// Legendre's continued fraction of Γ(a, x)·eˣ·x⁻ᵃ (modified Lentz) and its derivative in a.
function gammaQFraction(a: number, x: number): { value: number; derivative: number } {
  const TINY = 1e-300;
  let b = x + 1 - a, db = -1;
  let c = 1 / TINY, dc = 0;
  let d = 1 / b, dd = -db / (b * b);
  let h = d, dh = dd;
  for (let i = 1; i < 100000; i++) {
    const an = -i * (i - a), dan = i;
    b += 2;
    let raw = an * d + b, draw = dan * d + an * dd + db;
    if (Math.abs(raw) < TINY) { raw = TINY; draw = 0; }
    // d(an/c)/da, without squaring c (which starts at 1/tiny).
    const nc = b + an / c, dnc = db + (dan - (an * dc) / c) / c;
    [c, dc] = Math.abs(nc) < TINY ? [TINY, 0] : [nc, dnc];
    d = 1 / raw;
    dd = -draw / (raw * raw);
    const del = d * c, ddel = dd * c + d * dc;
    const nh = h * del, ndh = dh * del + h * ddel;
    const done = Math.abs(del - 1) < 1e-16 && Math.abs(ndh - dh) <= 1e-16 * Math.abs(ndh);
    h = nh;
    dh = ndh;
    if (done) break;
  }
  return { value: h, derivative: dh };
}

/**
 * ∂I_x(a, b)/∂a (wrt = 0) or ∂I_x(a, b)/∂b (wrt = 1), the derivatives of the regularised
 * incomplete beta function in its shapes. I = x^a (1−x)^b / (a·B(a, b)) · cf(a, b, x) on the side
 * x < (a+1)/(a+b+2) where the continued fraction converges quickly, and 1 minus the same with
 * (b, a, 1 − x) beyond it; cf is differentiated in both shapes alongside its value (forward mode
 * through the Lentz steps), and the prefactor through digamma, so the small side keeps its
 * relative accuracy.
 */
export function betaincGrad(a: number, b: number, x: number, wrt: number): number {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) return NaN;
  if (x === 0 || x === 1) return 0;
  const lf = gammaln(a + b) - gammaln(a) - gammaln(b) + a * Math.log(x) + b * Math.log1p(-x);
  const lfA = digamma(a + b) - digamma(a) + Math.log(x);
  const lfB = digamma(a + b) - digamma(b) + Math.log1p(-x);
  const f = Math.exp(lf);
  if (x < (a + 1) / (a + b + 2)) {
    const [h, hA, hB] = betaFractionDual(a, b, x);
    return wrt === 0 ? f * (lfA * h / a + hA / a - h / (a * a)) : f * (lfB * h / a + hB / a);
  }
  // cf(b, a, 1 − x): its first shape is b, its second a.
  const [h, hB, hA] = betaFractionDual(b, a, 1 - x);
  return wrt === 0 ? -f * (lfA * h / b + hA / b) : -f * (lfB * h / b + hB / b - h / (b * b));
}

// Numerical Recipes' betacf (modified Lentz) on dual numbers [value, ∂/∂a, ∂/∂b] of its shapes a, b.
type Dual = [number, number, number];
const dmul = (u: Dual, v: Dual): Dual => [u[0] * v[0], u[0] * v[1] + u[1] * v[0], u[0] * v[2] + u[2] * v[0]];
const ddiv = (u: Dual, v: Dual): Dual => {
  const q = u[0] / v[0];
  return [q, (u[1] - q * v[1]) / v[0], (u[2] - q * v[2]) / v[0]];
};
const dadd = (u: Dual, c: number): Dual => [u[0] + c, u[1], u[2]];
const guard = (u: Dual): Dual => (Math.abs(u[0]) < 1e-300 ? [1e-300, 0, 0] : u);

function betaFractionDual(a: number, b: number, x: number): Dual {
  const A: Dual = [a, 1, 0], B: Dual = [b, 0, 1];
  const qab: Dual = [a + b, 1, 1], qap = dadd(A, 1), qam = dadd(A, -1);
  let c: Dual = [1, 0, 0];
  let d = ddiv([1, 0, 0], guard(dadd(dmul([-x, 0, 0], ddiv(qab, qap)), 1)));
  let h = d;
  for (let m = 1; m < 100000; m++) {
    const m2 = 2 * m;
    let aa = ddiv(dmul([m * x, 0, 0], dadd(B, -m)), dmul(dadd(qam, m2), dadd(A, m2)));
    d = ddiv([1, 0, 0], guard(dadd(dmul(aa, d), 1)));
    c = guard(dadd(ddiv(aa, c), 1));
    h = dmul(h, dmul(d, c));
    aa = ddiv(dmul([-x, 0, 0], dmul(dadd(A, m), dadd(qab, m))), dmul(dadd(A, m2), dadd(qap, m2)));
    d = ddiv([1, 0, 0], guard(dadd(dmul(aa, d), 1)));
    c = guard(dadd(ddiv(aa, c), 1));
    const del = dmul(d, c);
    const next = dmul(h, del);
    const settled = Math.abs(next[1] - h[1]) <= 1e-16 * Math.abs(next[1]) && Math.abs(next[2] - h[2]) <= 1e-16 * Math.abs(next[2]);
    h = next;
    if (Math.abs(del[0] - 1) < 1e-16 && settled) break;
  }
  return h;
}
