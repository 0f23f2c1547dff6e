// Special functions of the distributions' CDFs, generic over REAL:
//   ppl_inv_phi(p)       the standard normal quantile,
//   ppl_gamma_p(a, x)    regularised lower incomplete gamma P(a, x), ppl_gamma_q(a, x) = 1 - P,
//   ppl_gamma_p_da(a, x) dP(a, x)/da,
//   ppl_betainc(a, b, x) regularised incomplete beta I_x(a, b),
//   ppl_betainc_grad(a, b, x, wrt) its derivative in a (wrt = 0) or b (wrt = 1),
//   ppl_owens_t(h, a)    Owen's T function.
// The CPU reference takes the incomplete gamma and beta functions from stdlib (Boost's algorithms);
// here they are the classic power series and Legendre / Lentz continued fractions (Numerical
// Recipes 6.2 and 6.4), which agree with it to a small multiple of the precision for moderate
// shapes: the prefactor x^a e^-x / Gamma(a) is taken through its logarithm, whose rounding grows
// with a, so f32 loses about log2(a) bits more. Owen's T is the same quadrature as on the CPU.

// Lentz's guard against a zero denominator (small enough for either precision).
#define PPL_LENTZ_TINY R(1.0e-30)

// Acklam's rational approximation of the normal quantile for 0 < p <= 1/2 (relative error
// 1.2e-9), refined by one Halley step on Phi(x) - p, which gives full precision in f64. The
// step is skipped for subnormal p, where exp(x^2/2) would overflow.
REAL ppl_inv_phi_lower(REAL p) {
  REAL x;
  if (p < R(0.02425)) {
    REAL q = sqrt(R(-2.0) * ppl_log(p));
    x = (((((R(-7.784894002430293e-03) * q + R(-3.223964580411365e-01)) * q + R(-2.400758277161838e+00)) * q
        + R(-2.549732539343734e+00)) * q + R(4.374664141464968e+00)) * q + R(2.938163982698783e+00))
        / ((((R(7.784695709041462e-03) * q + R(3.224671290700398e-01)) * q + R(2.445134137142996e+00)) * q
        + R(3.754408661907416e+00)) * q + R(1.0));
  } else {
    REAL q = p - R(0.5);
    REAL r = q * q;
    x = (((((R(-3.969683028665376e+01) * r + R(2.209460984245205e+02)) * r + R(-2.759285104469687e+02)) * r
        + R(1.383577518672690e+02)) * r + R(-3.066479806614716e+01)) * r + R(2.506628277459239e+00)) * q
        / (((((R(-5.447609879822406e+01) * r + R(1.615858368580409e+02)) * r + R(-1.556989798598866e+02)) * r
        + R(6.680131188771972e+01)) * r + R(-1.328068155288572e+01)) * r + R(1.0));
  }
  if (p < PPL_MIN_NORMAL) return x;
  REAL e = R(0.5) * ppl_erfc(-x * R(0.70710678118654752440)) - p;
  REAL u = e * R(2.50662827463100050242) * ppl_exp(R(0.5) * x * x);
  return x - u / (R(1.0) + R(0.5) * x * u);
}

REAL ppl_inv_phi(REAL p) {
  if (ppl_isnan(p) || p < R(0.0) || p > R(1.0)) return PPL_NAN;
  if (p == R(0.0)) return -PPL_INF;
  if (p == R(1.0)) return PPL_INF;
  // 1 - p is exact for p >= 1/2, so the upper half reuses the lower tail without cancellation.
  return p > R(0.5) ? -ppl_inv_phi_lower(R(1.0) - p) : ppl_inv_phi_lower(p);
}

// log(x^a e^-x / Gamma(a)): the prefactor of the series and of the continued fraction.
REAL ppl_gamma_log_prefactor(REAL a, REAL x) {
  return a * ppl_log(x) - x - ppl_lgamma(a);
}

// P(a, x) = x^a e^-x / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n)), used for x < a + 1, where the
// terms fall at least geometrically after n ~ x - a.
REAL ppl_gamma_p_series(REAL a, REAL x) {
  REAL ap = a;
  REAL term = R(1.0) / a;
  REAL sum = term;
  for (int n = 0; n < 10000; n++) {
    ap += R(1.0);
    term *= x / ap;
    sum += term;
    if (abs(term) < abs(sum) * PPL_EPS) break;
  }
  return sum * ppl_exp(ppl_gamma_log_prefactor(a, x));
}

// Q(a, x) by Legendre's continued fraction (modified Lentz), used for x >= a + 1.
REAL ppl_gamma_q_fraction(REAL a, REAL x) {
  REAL b = x + R(1.0) - a;
  REAL c = R(1.0) / PPL_LENTZ_TINY;
  REAL d = R(1.0) / b;
  REAL h = d;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    b += R(2.0);
    d = an * d + b;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = b + an / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = R(1.0) / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - R(1.0)) < PPL_EPS) break;
  }
  return ppl_exp(ppl_gamma_log_prefactor(a, x)) * h;
}

REAL ppl_gamma_p(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > R(0.0)) || x < R(0.0)) return PPL_NAN;
  if (x == R(0.0)) return R(0.0);
  if (ppl_isinf(x)) return R(1.0);
  return x < a + R(1.0) ? ppl_gamma_p_series(a, x) : R(1.0) - ppl_gamma_q_fraction(a, x);
}

REAL ppl_gamma_q(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > R(0.0)) || x < R(0.0)) return PPL_NAN;
  if (x == R(0.0)) return R(1.0);
  if (ppl_isinf(x)) return R(0.0);
  return x < a + R(1.0) ? R(1.0) - ppl_gamma_p_series(a, x) : ppl_gamma_q_fraction(a, x);
}

// dP(a, x)/da (see packages/tensor/src/cpu/special.ts, gammaPDa): below x = a + 1 the series of P
// differentiated term by term, P (log x - psi(a+1)) - x^a e^-x / Gamma(a+1) sum_n s_n H_n with
// s_n = x^n / ((a+1)...(a+n)) and H_n = sum_{k<=n} 1/(a+k); above, -dQ/da from Q's continued
// fraction differentiated in a alongside its value (forward mode through the Lentz steps).
REAL ppl_gamma_p_da(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > R(0.0)) || x < R(0.0)) return PPL_NAN;
  if (x == R(0.0) || ppl_isinf(x)) return R(0.0);
  REAL logx = ppl_log(x);
  if (x < a + R(1.0)) {
    REAL s = R(1.0);
    REAL sum = R(1.0);
    REAL hn = R(0.0);
    REAL sumH = R(0.0);
    for (int n = 1; n < 10000; n++) {
      hn += R(1.0) / (a + REAL(n));
      s *= x / (a + REAL(n));
      sum += s;
      sumH += s * hn;
      if (s < sum * PPL_EPS && s * hn < sumH * PPL_EPS) break;
    }
    REAL pref = ppl_exp(a * logx - x - ppl_lgamma(a + R(1.0)));
    return pref * (sum * (logx - ppl_digamma(a + R(1.0))) - sumH);
  }
  REAL b = x + R(1.0) - a;
  REAL db = R(-1.0);
  REAL c = R(1.0) / PPL_LENTZ_TINY;
  REAL dc = R(0.0);
  REAL d = R(1.0) / b;
  REAL dd = -db / (b * b);
  REAL h = d;
  REAL dh = dd;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    REAL dan = REAL(i);
    b += R(2.0);
    REAL raw = an * d + b;
    REAL draw = dan * d + an * dd + db;
    if (abs(raw) < PPL_LENTZ_TINY) { raw = PPL_LENTZ_TINY; draw = R(0.0); }
    REAL nc = b + an / c;
    REAL dnc = db + (dan - an * dc / c) / c;  // d(an/c)/da, without squaring c (which starts at 1/tiny)
    if (abs(nc) < PPL_LENTZ_TINY) { nc = PPL_LENTZ_TINY; dnc = R(0.0); }
    c = nc;
    dc = dnc;
    d = R(1.0) / raw;
    dd = -draw / (raw * raw);
    REAL del = d * c;
    REAL ddel = dd * c + d * dc;
    REAL ndh = dh * del + h * ddel;
    bool done = abs(del - R(1.0)) < PPL_EPS && abs(ndh - dh) <= PPL_EPS * abs(ndh);
    h *= del;
    dh = ndh;
    if (done) break;
  }
  REAL pref = ppl_exp(a * logx - x - ppl_lgamma(a));
  return -pref * (h * (logx - ppl_digamma(a)) + dh);
}

// The continued fraction of I_x(a, b) (Numerical Recipes' betacf, modified Lentz); it converges
// quickly for x < (a + 1) / (a + b + 2), the side ppl_betainc calls it on.
REAL ppl_beta_fraction(REAL a, REAL b, REAL x) {
  REAL qab = a + b;
  REAL qap = a + R(1.0);
  REAL qam = a - R(1.0);
  REAL c = R(1.0);
  REAL d = R(1.0) - qab * x / qap;
  if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
  d = R(1.0) / d;
  REAL h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = R(2.0) * rm;
    REAL aa = rm * (b - rm) * x / ((qam + m2) * (a + m2));
    d = R(1.0) + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = R(1.0) + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = R(1.0) / d;
    h *= d * c;
    aa = -(a + rm) * (qab + rm) * x / ((a + m2) * (qap + m2));
    d = R(1.0) + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = R(1.0) + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = R(1.0) / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - R(1.0)) < PPL_EPS) break;
  }
  return h;
}

REAL ppl_betainc(REAL a, REAL b, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > R(0.0)) || !(b > R(0.0)) || x < R(0.0) || x > R(1.0)) {
    return PPL_NAN;
  }
  if (x == R(0.0)) return R(0.0);
  if (x == R(1.0)) return R(1.0);
  // log(x^a (1-x)^b / B(a, b))
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  if (x < (a + R(1.0)) / (a + b + R(2.0))) return ppl_exp(lf) * ppl_beta_fraction(a, b, x) / a;
  return R(1.0) - ppl_exp(lf) * ppl_beta_fraction(b, a, R(1.0) - x) / b;
}

// Dual numbers (value, d/da, d/db) for differentiating the beta continued fraction in its shapes.
REAL3 ppl_dual_mul(REAL3 u, REAL3 v) { return REAL3(u.x * v.x, u.x * v.y + u.y * v.x, u.x * v.z + u.z * v.x); }
REAL3 ppl_dual_div(REAL3 u, REAL3 v) {
  REAL q = u.x / v.x;
  return REAL3(q, (u.y - q * v.y) / v.x, (u.z - q * v.z) / v.x);
}
REAL3 ppl_dual_guard(REAL3 u) { return abs(u.x) < PPL_LENTZ_TINY ? REAL3(PPL_LENTZ_TINY, R(0.0), R(0.0)) : u; }

// ppl_beta_fraction on dual numbers of its shapes a and b (forward mode through the Lentz steps),
// run until the value and both derivatives have settled.
REAL3 ppl_beta_fraction_dual(REAL a, REAL b, REAL x) {
  REAL3 A = REAL3(a, R(1.0), R(0.0));
  REAL3 B = REAL3(b, R(0.0), R(1.0));
  REAL3 one = REAL3(R(1.0), R(0.0), R(0.0));
  REAL3 qab = REAL3(a + b, R(1.0), R(1.0));
  REAL3 qap = A + one;
  REAL3 qam = A - one;
  REAL3 c = one;
  REAL3 d = ppl_dual_div(one, ppl_dual_guard(one - ppl_dual_div(qab * x, qap)));
  REAL3 h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = R(2.0) * rm;
    REAL3 aa = ppl_dual_div((B - rm * one) * (rm * x), ppl_dual_mul(qam + m2 * one, A + m2 * one));
    d = ppl_dual_div(one, ppl_dual_guard(one + ppl_dual_mul(aa, d)));
    c = ppl_dual_guard(one + ppl_dual_div(aa, c));
    h = ppl_dual_mul(h, ppl_dual_mul(d, c));
    aa = ppl_dual_div(ppl_dual_mul(A + rm * one, qab + rm * one) * (-x), ppl_dual_mul(A + m2 * one, qap + m2 * one));
    d = ppl_dual_div(one, ppl_dual_guard(one + ppl_dual_mul(aa, d)));
    c = ppl_dual_guard(one + ppl_dual_div(aa, c));
    REAL3 del = ppl_dual_mul(d, c);
    REAL3 next = ppl_dual_mul(h, del);
    bool settled = abs(next.y - h.y) <= PPL_EPS * abs(next.y) && abs(next.z - h.z) <= PPL_EPS * abs(next.z);
    h = next;
    if (abs(del.x - R(1.0)) < PPL_EPS && settled) break;
  }
  return h;
}

// dI_x(a, b)/da (wrt = 0) or /db (wrt = 1): the prefactor x^a (1-x)^b / B(a, b) through digamma and
// the continued fraction through its dual, on the side where it converges (as ppl_betainc).
REAL ppl_betainc_grad(REAL a, REAL b, REAL x, int wrt) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > R(0.0)) || !(b > R(0.0)) || x < R(0.0) || x > R(1.0)) {
    return PPL_NAN;
  }
  if (x == R(0.0) || x == R(1.0)) return R(0.0);
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  REAL psab = ppl_digamma(a + b);
  REAL lfa = psab - ppl_digamma(a) + ppl_log(x);
  REAL lfb = psab - ppl_digamma(b) + ppl_log1p(-x);
  REAL f = ppl_exp(lf);
  if (x < (a + R(1.0)) / (a + b + R(2.0))) {
    REAL3 h = ppl_beta_fraction_dual(a, b, x);
    return wrt == 0 ? f * (lfa * h.x / a + h.y / a - h.x / (a * a)) : f * (lfb * h.x / a + h.z / a);
  }
  // cf(b, a, 1 - x): its first shape is b (the .y part), its second a (.z).
  REAL3 h = ppl_beta_fraction_dual(b, a, R(1.0) - x);
  return wrt == 0 ? -f * (lfa * h.x / b + h.z / b) : -f * (lfb * h.x / b + h.y / b - h.x / (b * b));
}

// (1/2pi) int_0^a exp(-h^2 (1+t^2)/2) / (1+t^2) dt for h >= 0, 0 <= a <= 1, by 32-point
// Gauss-Legendre over the part of [0, a] where the integrand is above exp(-50) of its value at 0.
REAL ppl_owens_t_quadrature(REAL h, REAL a) {
  const REAL nodes[16] = REAL[16](R(0.048307665687738324), R(0.1444719615827965), R(0.23928736225213706), R(0.33186860228212767), R(0.42135127613063533), R(0.5068999089322294), R(0.5877157572407623), R(0.6630442669302152), R(0.7321821187402897), R(0.7944837959679424), R(0.84936761373257), R(0.8963211557660521), R(0.9349060759377397), R(0.9647622555875064), R(0.9856115115452684), R(0.9972638618494816));
  const REAL weights[16] = REAL[16](R(0.09654008851472766), R(0.09563872007927471), R(0.09384439908080451), R(0.09117387869576378), R(0.08765209300440378), R(0.08331192422694671), R(0.07819389578707023), R(0.07234579410884834), R(0.06582222277636168), R(0.058684093478535565), R(0.05099805926237609), R(0.042835898022226836), R(0.034273862913021765), R(0.025392065309262024), R(0.016274394730905743), R(0.007018610009470506));
  REAL u = h * a > R(10.0) ? R(10.0) / h : a;
  REAL hw = R(0.5) * u;
  REAL s = R(0.0);
  for (int k = 0; k < 16; k++) {
    REAL t1 = hw * (R(1.0) - nodes[k]);
    REAL t2 = hw * (R(1.0) + nodes[k]);
    REAL q1 = R(1.0) + t1 * t1;
    REAL q2 = R(1.0) + t2 * t2;
    s += weights[k] * (ppl_exp(R(-0.5) * h * h * q1) / q1 + ppl_exp(R(-0.5) * h * h * q2) / q2);
  }
  return s * hw * R(0.15915494309189533577);  // 1 / (2 pi)
}

// T is even in h and odd in a; for |a| > 1, T(h, a) = Q(h)/2 + Q(ah)/2 - Q(h) Q(ah) - T(ah, 1/a)
// with upper normal tails Q (which do not cancel for large h) maps the integral onto [0, 1].
REAL ppl_owens_t(REAL h, REAL a) {
  if (ppl_isnan(h) || ppl_isnan(a)) return PPL_NAN;
  REAL sg = a < R(0.0) ? R(-1.0) : R(1.0);
  REAL aa = abs(a);
  REAL ah = abs(h);
  if (aa == R(0.0) || ppl_isinf(ah)) return R(0.0);
  if (aa <= R(1.0)) return sg * ppl_owens_t_quadrature(ah, aa);
  if (ah == R(0.0)) return sg * ppl_atan(aa) * R(0.15915494309189533577);
  REAL qh = R(0.5) * ppl_erfc(ah * R(0.70710678118654752440));
  REAL qah = R(0.5) * ppl_erfc(aa * ah * R(0.70710678118654752440));
  REAL rest = ppl_isinf(aa) ? R(0.0) : ppl_owens_t_quadrature(aa * ah, R(1.0) / aa);
  return sg * (R(0.5) * qh + R(0.5) * qah - qh * qah - rest);
}

#undef PPL_LENTZ_TINY
