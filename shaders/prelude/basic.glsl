// Elementwise basics with the CPU backend's semantics (packages/tensor/src/cpu/scalar.ts).
// Generic over REAL (see real_f64.glsl).

REAL ppl_abs(REAL x) { return abs(x); }
REAL ppl_neg(REAL x) { return -x; }
REAL ppl_floor(REAL x) { return floor(x); }
REAL ppl_ceil(REAL x) { return ceil(x); }
REAL ppl_square(REAL x) { return x * x; }
REAL ppl_reciprocal(REAL x) { return R(1.0) / x; }

// sign: +1, -1, and x itself for +-0 and NaN (like the CPU, unlike GLSL's sign on NaN).
REAL ppl_sign(REAL x) { return x > R(0.0) ? R(1.0) : (x < R(0.0) ? R(-1.0) : x); }

// sqrt is correctly rounded for both types in Vulkan (SPIR-V Sqrt on double is exact on
// lavapipe and NVIDIA); rsqrt is 1/sqrt rather than inversesqrt, whose f64 precision is unspecified.
REAL ppl_sqrt(REAL x) { return sqrt(x); }
REAL ppl_rsqrt(REAL x) { return R(1.0) / sqrt(x); }

// max/min with the CPU's NaN rule: NaN in either argument gives NaN.
REAL ppl_max(REAL a, REAL b) { return (a >= b || ppl_isnan(a)) ? a : b; }
REAL ppl_min(REAL a, REAL b) { return (a <= b || ppl_isnan(a)) ? a : b; }

// trunc by rounding through 2^52 (2^23 for f32): llvmpipe's f64 trunc returns 2885850131105109.5
// unchanged (it treats values past 2^51 as integers), which made mod wrong by b/2 there.
REAL ppl_trunc(REAL x) {
  REAL ax = abs(x);
  if (!(ax < PPL_ALL_INTEGERS)) return x;  // integral already, or NaN/inf
  precise REAL t = (ax + PPL_ALL_INTEGERS) - PPL_ALL_INTEGERS;  // nearest integer to |x|
  if (t > ax) t -= R(1.0);
  return x < R(0.0) ? -t : t;
}

// Python-style remainder (sign of the divisor), as the CPU's mod: r = a - trunc(a/b)*b with the
// product formed exactly (Dekker), then one correction step for a rounded-up quotient and the
// shift by b when the signs of r and b differ. Exact while |a/b| < 2^52 (2^23 for f32); for larger
// quotients (huge a, tiny b) the result is inaccurate or NaN: no bitwise long division is done.
REAL ppl_mod(REAL a, REAL b) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isinf(a) || b == R(0.0)) return PPL_NAN;
  if (ppl_isinf(b)) return (a != R(0.0) && (a < R(0.0)) != (b < R(0.0))) ? b : a;
  precise REAL q = ppl_trunc(a / b);
  REAL p, e;
  ppl_two_prod(q, b, p, e);
  precise REAL r = (a - p) - e;
  // a/b rounded away from zero past an integer: r has the wrong sign; step q back by one.
  if (r != R(0.0) && (r < R(0.0)) != (a < R(0.0))) r = ((a < R(0.0)) == (b < R(0.0))) ? r + b : r - b;
  if (r != R(0.0) && (r < R(0.0)) != (b < R(0.0))) r += b;
  return r;
}

REAL ppl_nan(REAL like) { return PPL_NAN; }
REAL ppl_inf(REAL like) { return PPL_INF; }
