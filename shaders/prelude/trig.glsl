// sin, cos, and sin(pi x), cos(pi x): fdlibm s_sin.c / s_cos.c with the kernels k_sin.c, k_cos.c
// (as in V8, so f64 results match JS Math.sin/Math.cos where the reduction is exact), error < 1 ulp.
// Range reduction is ppl_rem_pio2 (per type, in real_f32.glsl / real_f64.glsl): Cody-Waite
// with a 3-part pi/2 for f64, exact for |x| < ~8e5; the f32 one is accurate for |x| < 1e5.
// The kernels take the reduced argument as a double-word y0 + y1. Generic over REAL.

// sin(x + y) on |x| <= pi/4, y the tail of x; iy = 0 means y is known to be 0.
REAL ppl_kernel_sin(REAL x, REAL y, int iy) {
  if (abs(x) < R(7.450580596923828125e-09)) return x;  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL v = z * x;
  precise REAL r = R(8.33333333332248946124e-03) + z * (R(-1.98412698298579493134e-04)
      + z * (R(2.75573137070700676789e-06) + z * (R(-2.50507602534068634195e-08)
      + z * R(1.58969099521155010221e-10))));
  precise REAL res;
  if (iy == 0) res = x + v * (R(-1.66666666666666324348e-01) + z * r);
  else res = x - ((z * (R(0.5) * y - v * r) - y) - v * R(-1.66666666666666324348e-01));
  return res;
}

// cos(x + y) on |x| <= pi/4. For |x| >= 0.3, 1 - qx and x^2/2 - qx are exact (qx ~ x/4 with its
// low bits cleared), which keeps the subtraction accurate.
REAL ppl_kernel_cos(REAL x, REAL y) {
  REAL ax = abs(x);
  if (ax < R(7.450580596923828125e-09)) return R(1.0);  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL r = z * (R(4.16666666666666019037e-02) + z * (R(-1.38888888888741095749e-03)
      + z * (R(2.48015872894767294178e-05) + z * (R(-2.75573143513906633035e-07)
      + z * (R(2.08757232129817482790e-09) + z * R(-1.13596475577881948265e-11))))));
  precise REAL res;
  if (ax < R(0.3)) {
    res = R(1.0) - (R(0.5) * z - (z * r - x * y));
  } else {
    REAL qx = (ax > R(0.78125)) ? R(0.28125) : ppl_clear_low(ax * R(0.25));
    precise REAL hz = R(0.5) * z - qx;
    precise REAL a = R(1.0) - qx;
    res = a - (hz - (z * r - x * y));
  }
  return res;
}

REAL ppl_sin(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  if (abs(x) <= R(7.85398163397448278999e-01)) return ppl_kernel_sin(x, R(0.0), 0);
  REAL y0, y1;
  int n = ppl_rem_pio2(x, y0, y1);
  switch (n & 3) {
    case 0: return ppl_kernel_sin(y0, y1, 1);
    case 1: return ppl_kernel_cos(y0, y1);
    case 2: return -ppl_kernel_sin(y0, y1, 1);
    default: return -ppl_kernel_cos(y0, y1);
  }
}

REAL ppl_cos(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  if (abs(x) <= R(7.85398163397448278999e-01)) return ppl_kernel_cos(x, R(0.0));
  REAL y0, y1;
  int n = ppl_rem_pio2(x, y0, y1);
  switch (n & 3) {
    case 0: return ppl_kernel_cos(y0, y1);
    case 1: return -ppl_kernel_sin(y0, y1, 1);
    case 2: return -ppl_kernel_cos(y0, y1);
    default: return ppl_kernel_sin(y0, y1, 1);
  }
}

// sin(pi*x) exactly zero at integers, accurate near them (the reduction x mod 2 is exact):
// the scheme of stdlib's sinpi. Used by the reflection formulas of lgamma and the polygammas.
REAL ppl_sinpi(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  const REAL PI = R(3.141592653589793116);
  precise REAL r = x - R(2.0) * ppl_trunc(x * R(0.5));  // x mod 2 with the sign of x, exact
  REAL ar = abs(r);
  REAL sg = r < R(0.0) ? R(-1.0) : R(1.0);
  if (ar == R(0.0) || ar == R(1.0)) return sg * R(0.0);
  if (ar < R(0.25)) return ppl_sin(PI * r);
  if (ar < R(0.75)) return sg * ppl_cos(PI * (R(0.5) - ar));
  if (ar < R(1.25)) return ppl_sin(PI * (sg - r));
  if (ar < R(1.75)) return -sg * ppl_cos(PI * (ar - R(1.5)));
  return ppl_sin(PI * (r - R(2.0) * sg));
}

// cos(pi*x), exactly zero at half-integers.
REAL ppl_cospi(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  const REAL PI = R(3.141592653589793116);
  REAL ar = abs(x - R(2.0) * ppl_trunc(x * R(0.5)));  // |x| mod 2, exact
  if (ar == R(0.5) || ar == R(1.5)) return R(0.0);
  if (ar < R(0.25)) return ppl_cos(PI * ar);
  if (ar < R(0.75)) return ppl_sin(PI * (R(0.5) - ar));
  if (ar < R(1.25)) return -ppl_cos(PI * (R(1.0) - ar));
  if (ar < R(1.75)) return ppl_sin(PI * (ar - R(1.5)));
  return ppl_cos(PI * (R(2.0) - ar));
}
