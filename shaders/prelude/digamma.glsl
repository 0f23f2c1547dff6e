// digamma(x) = psi(x) = d/dx lgamma(x): the Boost scheme ported by stdlib (the CPU reference).
//   x >= 10:      psi(x) = log(x-1) + 1/(2(x-1)) - sum_k B_2k/(2k (x-1)^2k)  (asymptotic series)
//   1 <= x <= 2:  psi(x) = (x - x0) * (Y + P(x-1)/Q(x-1)), x0 = 1.46163... the positive root
//                 (x0 carried in three parts), so psi keeps full relative accuracy at its root;
//   other x > -1: the recurrence psi(x+1) = psi(x) + 1/x down or up into [1, 2];
//   x <= -1:      reflection psi(1-x) - psi(x) = pi cot(pi x) (computed as pi cospi/sinpi).
// Poles (0 and negative integers) give NaN, as the CPU reference. Generic over REAL.

REAL ppl_digamma_rational(REAL t) {
  // P/Q evaluated in t or, for |t| > 1, in 1/t (stdlib's evalrational); here t = x - 1 in [0, 1].
  REAL s1 = R(0.25479851061131553) + t * (R(-0.3255503118680449) + t * (R(-0.6503185377089651)
      + t * (R(-0.28919126444774784) + t * (R(-0.04525132144873906) + t * R(-0.002071332116774595)))));
  REAL s2 = R(1.0) + t * (R(2.076711702373047) + t * (R(1.4606242909763516) + t * (R(0.43593529692665967)
      + t * (R(0.054151797245674226) + t * (R(0.0021284987017821146) + t * R(-5.578984132167551e-7))))));
  return s1 / s2;
}

REAL ppl_digamma(REAL x) {
  if (ppl_isnan(x) || x == R(0.0)) return PPL_NAN;
  if (ppl_isinf(x)) return x > R(0.0) ? x : PPL_NAN;
  REAL tmp = R(0.0);
  if (x <= R(-1.0)) {
    x = R(1.0) - x;
    REAL rem = x - floor(x);
    if (rem > R(0.5)) rem -= R(1.0);
    if (rem == R(0.0)) return PPL_NAN;
    tmp = R(3.14159265358979311600e+00) * ppl_cospi(rem) / ppl_sinpi(rem);
  }
  if (x >= R(10.0)) {
    REAL xm = x - R(1.0);
    REAL z = R(1.0) / (xm * xm);
    REAL p = R(0.08333333333333333) + z * (R(-0.008333333333333333) + z * (R(0.003968253968253968)
        + z * (R(-0.004166666666666667) + z * (R(0.007575757575757576) + z * (R(-0.021092796092796094)
        + z * (R(0.08333333333333333) + z * R(-0.4432598039215686)))))));
    return tmp + (ppl_log(xm) + R(1.0) / (R(2.0) * xm) - z * p);
  }
  while (x > R(2.0)) {
    x -= R(1.0);
    tmp += R(1.0) / x;
  }
  while (x < R(1.0)) {
    tmp -= R(1.0) / x;
    x += R(1.0);
  }
  // x - x0 with x0 in three parts, subtracted in this order: `precise`, or the compiler folds
  // the three constants into one and the digits below the first part are lost.
  precise REAL g = x - PPL_DIGAMMA_ROOT1;  // the split is per type (real_f32.glsl, real_f64.glsl)
  g -= PPL_DIGAMMA_ROOT2;
  g -= PPL_DIGAMMA_ROOT3;
  REAL rr = ppl_digamma_rational(x - R(1.0));
  return tmp + (g * R(0.99558162689208984) + g * rr);
}
