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

#ifdef PPL_REAL_F32
// float: the same reduction x = k*ln2 + r, and exp(r) as its degree-7 Taylor polynomial in Horner
// form with fused multiply-adds: on |r| <= ln2/2 the truncation r^8/8! is under 0.09 ulp and the
// last fma rounds once, so the error stays under 1 ulp (measured: prelude.test.ts). The f64 form's
// rational kernel, its division and its 53-bit coefficients are a third more instructions than
// needed for 24 bits, which matters for per-element exps (the logistic terms of a regression).
float ppl_exp(float x) {
  if (ppl_isnan(x)) return x;
  if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  if (x < PPL_EXP_UNDERFLOW) return 0.0;
  float kf = roundEven(x * 1.44269504088896338700);
  // fdlibm's two-part reduction with plain precise operations: written as two dependent fma()
  // calls, lavapipe folded them into one product with LN2_HI + LN2_LO rounded to a float (30 ulp at
  // |k| = 115).
  precise float hi = x - kf * PPL_LN2_HI;
  precise float r = hi - kf * PPL_LN2_LO;
  precise float p = fma(r, 1.98412698412698412698e-04, 1.38888888888888888889e-03);
  p = fma(p, r, 8.33333333333333333333e-03);
  p = fma(p, r, 4.16666666666666666667e-02);
  p = fma(p, r, 1.66666666666666666667e-01);
  p = fma(p, r, 0.5);
  p = fma(p, r, 1.0);
  p = fma(p, r, 1.0);
  // p * 2^k by adding k to p's exponent field (integer work, no multiplies); a subnormal result is
  // one exact step and one rounding multiply.
  int k = int(kf);
  int e = int(floatBitsToUint(p) >> 23) + k;  // the result's exponent field
  uint shifted = floatBitsToUint(p) + uint((e >= 1 ? k : k + 64) << 23);
  return e >= 1 ? uintBitsToFloat(shifted) : uintBitsToFloat(shifted) * 5.42101086242752217004e-20;  // 2^-64
}
#else
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
#endif
