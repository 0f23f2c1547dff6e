// exp(x): fdlibm e_exp.c (as in V8, so f64 results match JS Math.exp), error < 1 ulp.
// Method: x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 = LN2_HI + LN2_LO, k*LN2_HI exact);
// exp(r) = 1 + 2r/(2 - R(r)) with R a degree-10 minimax polynomial in r (5 terms in r^2);
// then scale by 2^k. Generic over REAL; temporaries are `precise` because the formulas rely on
// the exact order of IEEE operations.

// 1 - ((lo - r*c/(2-c)) - hi) scaled by 2^k, for r = hi - lo.
REAL ppl_exp_kernel(REAL hi, REAL lo, int k) {
  precise REAL r = hi - lo;
  precise REAL t = r * r;
  precise REAL c = r - t * (R(1.66666666666666019037e-01) + t * (R(-2.77777777770155933842e-03)
      + t * (R(6.61375632143793436117e-05) + t * (R(-1.65339022054652515390e-06)
      + t * R(4.13813679705723846039e-08)))));
  precise REAL y = R(1.0) - ((lo - (r * c) / (R(2.0) - c)) - hi);
  return ppl_scale(y, k);
}

// exp(xh + xl) for a double-word argument (|xl| <= ulp(xh)): the tail joins the reduced argument.
REAL ppl_exp_dw(REAL xh, REAL xl) {
  if (ppl_isnan(xh)) return xh;
  if (xh > PPL_EXP_OVERFLOW) return PPL_INF;
  if (xh < PPL_EXP_UNDERFLOW) return R(0.0);
  int k = int(R(1.44269504088896338700e+00) * xh + (xh < R(0.0) ? R(-0.5) : R(0.5)));
  REAL fk = REAL(k);
  precise REAL hi = xh - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO - xl;
  return ppl_exp_kernel(hi, lo, k);
}

REAL ppl_exp(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  if (x < PPL_EXP_UNDERFLOW) return R(0.0);
  REAL ax = abs(x);
  if (ax < PPL_EXP_TINY) return R(1.0) + x;
  // |x| <= ln2/2 takes k = 0, so hi = x and lo = 0 and the kernel computes fdlibm's k = 0 formula
  // 1 - ((x*c)/(c - 2) - x) to the bit (0 - q = -q, and (x*c)/(2 - c) is that quotient negated).
  // A select instead of a separate path: a subgroup whose lanes straddle ln2/2 runs one path, not both.
  int k = ax <= R(3.46573590279972654709e-01) ? 0 : int(R(1.44269504088896338700e+00) * x + (x < R(0.0) ? R(-0.5) : R(0.5)));
  REAL fk = REAL(k);
  precise REAL hi = x - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO;
  return ppl_exp_kernel(hi, lo, k);
}
