// expm1(x) = exp(x) - 1 without cancellation near 0: fdlibm s_expm1.c, error < 1 ulp.
// Method: x = k*ln2 + r (Cody-Waite, with the rounding error of r kept in c); on |r| <= ln2/2
// expm1(r) = r + r^2/2 + r^3/2 * (3 - (R1 + R1*r/2))/(6 - r*(3 - R1*r/2)) with a rational
// approximation R1 in r^2 (5 terms); then 2^k*(expm1(r) - c + 1) - 1, rearranged per range of k
// to stay exact. Generic over REAL.

REAL ppl_expm1(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x == R(0.0)) return x;  // keeps -0
  REAL ax = abs(x);
  if (ax >= PPL_EXPM1_SATURATE) {
    if (x < R(0.0)) return R(-1.0);
    if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  }
  int k = 0;
  precise REAL c = R(0.0);
  precise REAL xr = x;
  if (ax > R(3.46573590279972654709e-01)) {  // |x| > ln2/2: reduce
    precise REAL hi;
    precise REAL lo;
    if (ax < R(1.03972077083991796413e+00)) {  // |x| < 1.5*ln2: k = +-1
      if (x > R(0.0)) { hi = x - PPL_LN2_HI; lo = PPL_LN2_LO; k = 1; }
      else { hi = x + PPL_LN2_HI; lo = -PPL_LN2_LO; k = -1; }
    } else {
      k = int(R(1.44269504088896338700e+00) * x + (x < R(0.0) ? R(-0.5) : R(0.5)));
      REAL t = REAL(k);
      hi = x - t * PPL_LN2_HI;  // exact
      lo = t * PPL_LN2_LO;
    }
    xr = hi - lo;
    c = (hi - xr) - lo;
  } else if (ax < PPL_EXPM1_TINY) {
    return x;
  }
  precise REAL hfx = R(0.5) * xr;
  precise REAL hxs = xr * hfx;
  precise REAL r1 = R(1.0) + hxs * (R(-3.33333333333331316428e-02) + hxs * (R(1.58730158725481460165e-03)
      + hxs * (R(-7.93650757867487942473e-05) + hxs * (R(4.00821782732936239552e-06)
      + hxs * R(-2.01099218183624371326e-07)))));
  precise REAL t = R(3.0) - r1 * hfx;
  precise REAL e = hxs * ((r1 - t) / (R(6.0) - xr * t));
  if (k == 0) {
    precise REAL y0 = xr - (xr * e - hxs);  // c is 0
    return y0;
  }
  e = (xr * (e - c) - c);
  e -= hxs;
  if (k == -1) {
    precise REAL ym = R(0.5) * (xr - e) - R(0.5);
    return ym;
  }
  if (k == 1) {
    precise REAL yp = (xr < R(-0.25)) ? R(-2.0) * (e - (xr + R(0.5))) : R(1.0) + R(2.0) * (xr - e);
    return yp;
  }
  if (k <= -2 || k > 56) {  // exp(x) - 1 directly: the -1 is negligible or the result is ~-1
    precise REAL y = R(1.0) - (e - xr);
    y = ppl_scale(y, k);
    precise REAL y1 = y - R(1.0);
    return y1;
  }
  precise REAL y;
  if (k < PPL_EXPM1_KSPLIT) {
    precise REAL u = R(1.0) - ppl_scale(R(1.0), -k);  // 1 - 2^-k, exact
    y = u - (e - xr);
  } else {
    precise REAL u = ppl_scale(R(1.0), -k);  // 2^-k
    y = xr - (e + u);
    y += R(1.0);
  }
  precise REAL y2 = ppl_scale(y, k);
  return y2;
}
