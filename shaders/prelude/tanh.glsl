// tanh(x): fdlibm s_tanh.c, error < ~2 ulp. Built on expm1 so that small |x| keeps full relative
// accuracy: for |x| >= 1, tanh = 1 - 2/(expm1(2|x|) + 2); for |x| < 1, -t/(t + 2) with
// t = expm1(-2|x|); |x| >= 22 (9 for f32) is +-1 to working precision. Generic over REAL.

REAL ppl_tanh(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL z;
  if (ax >= PPL_TANH_SATURATE) {
    z = R(1.0);
  } else if (ax < PPL_TANH_TINY) {
    return x;
  } else if (ax >= R(1.0)) {
    REAL t = ppl_expm1(R(2.0) * ax);
    z = R(1.0) - R(2.0) / (t + R(2.0));
  } else {
    REAL t = ppl_expm1(R(-2.0) * ax);
    z = -t / (t + R(2.0));
  }
  return x < R(0.0) ? -z : z;
}
