// pow(x, y) with the special cases of JS Math.pow (ECMAScript Number::exponentiate):
// NaN exponent -> NaN, y = 0 -> 1, |x| = 1 with infinite y -> NaN, x < 0 only for integer y
// (sign from the parity of y), signed zeros and infinities as IEEE pow.
// Core: |x|^y = exp(y * log|x|) where log|x| is a double-word (relative error ~2^-59 for f64)
// and the product y*log|x| is formed exactly (Dekker), so the only large error source of the
// naive formula, the rounding of y*log|x| (amplified by |y*log|x||), is removed. The error is
// below ~1 ulp + |y*log(m)|*2^-59 (m = |x| scaled into [0.7, 1.4]), a few ulp even for results
// near the overflow threshold. Generic over REAL.

// log(x) = lh + ll for finite x > 0: x = 2^k*m, log(m) = 2*atanh(s) with s = (m-1)/(m+1)
// carried as a double-word, the series tail 2s^3/3 + 2s^5/5 + ... (|s| < 0.172, 12 terms,
// truncation < 2^-62) in working precision, and k*ln2 in two parts.
void ppl_log_dw(REAL x, out REAL lh, out REAL ll) {
  int k;
  int hx;
  REAL m = ppl_normalize(x, k, hx);
  if (hx >= 0x6a09e) {  // m >= ~sqrt(2): use m/2 in [sqrt(2)/2, 1)
    m *= R(0.5);
    k += 1;
  }
  precise REAL f = m - R(1.0);  // exact
  REAL dh, dl;
  ppl_fast_two_sum(R(2.0), f, dh, dl);  // 2 + f = dh + dl exactly
  precise REAL sh = f / dh;
  REAL ph, pl;
  ppl_two_prod(sh, dh, ph, pl);
  precise REAL sl = (((f - ph) - pl) - sh * dl) / dh;  // s - sh, from the exact residual
  precise REAL z = sh * sh;
  precise REAL tail = R(2.0) * sh * z * (R(0.33333333333333333333) + z * (R(0.2) + z * (R(0.14285714285714285714)
      + z * (R(0.11111111111111111111) + z * (R(0.09090909090909090909) + z * (R(0.07692307692307692308)
      + z * (R(0.06666666666666666667) + z * (R(0.05882352941176470588) + z * (R(0.05263157894736842105)
      + z * (R(0.04761904761904761905) + z * (R(0.04347826086956521739) + z * R(0.04))))))))))));
  REAL ah, al;
  ppl_fast_two_sum(R(2.0) * sh, R(2.0) * sl + tail, ah, al);
  REAL dk = REAL(k);
  REAL bh, bl;
  ppl_two_sum(dk * PPL_LN2_HI, ah, bh, bl);  // dk * LN2_HI is exact
  precise REAL lo = bl + (al + dk * PPL_LN2_LO);
  ppl_fast_two_sum(bh, lo, lh, ll);
}

REAL ppl_pow(REAL x, REAL y) {
  if (ppl_isnan(y)) return PPL_NAN;
  if (y == R(0.0)) return R(1.0);
  if (ppl_isnan(x)) return PPL_NAN;
  REAL ax = abs(x);
  if (ppl_isinf(y)) {
    if (ax == R(1.0)) return PPL_NAN;
    return ((ax > R(1.0)) == (y > R(0.0))) ? PPL_INF : R(0.0);
  }
  bool yint = floor(y) == y;
  bool yodd = yint && floor(y * R(0.5)) != y * R(0.5);  // |y| >= 2^53 (2^24) is always even
  if (x == R(0.0)) {  // +-0: the sign survives only for odd integer y
    if (y > R(0.0)) return yodd ? x : R(0.0);
    return (yodd && ppl_signbit(x)) ? -PPL_INF : PPL_INF;
  }
  if (ppl_isinf(x)) {
    if (x > R(0.0)) return y > R(0.0) ? PPL_INF : R(0.0);
    if (y > R(0.0)) return yodd ? -PPL_INF : PPL_INF;
    return yodd ? R(1.0) / x : R(0.0);  // -0 or +0
  }
  REAL sgn = R(1.0);
  if (x < R(0.0)) {
    if (!yint) return PPL_NAN;
    if (yodd) sgn = R(-1.0);
  }
  if (ax == R(1.0)) return sgn;
  REAL lh, ll;
  ppl_log_dw(ax, lh, ll);
  REAL w0 = y * lh;
  // Far outside the exp range: decide before forming the exact product (which could overflow).
  if (w0 > R(2.0) * PPL_EXP_OVERFLOW) return sgn * PPL_INF;
  if (w0 < R(2.0) * PPL_EXP_UNDERFLOW) return sgn * R(0.0);
  REAL wh, wl;
  ppl_two_prod(y, lh, wh, wl);
  precise REAL wlo = wl + y * ll;
  REAL eh, el;
  ppl_fast_two_sum(wh, wlo, eh, el);
  return sgn * ppl_exp_dw(eh, el);
}
