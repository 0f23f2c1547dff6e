#version 450
// 2 independent kernels in one dispatch, each on its own workgroups:
//   part 0: reduce_sum [1024] (node 49a3567490b222fbc75b8aaa)
//   part 1: matmul [200,1024] (node c29d74273963bf6d5cd553a8): tiled matmul 32x32x4, 1 k-slices
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
shared float ppl_As[160];
shared float ppl_Bs[132];
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// ---- shaders/prelude/philox.glsl
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC'11), bit-exact with Random123 and with packages/ppl/src/random/philox.ts.
// Type-free (32-bit unsigned integers only); included once, before both REAL instantiations.

// Encrypts counter (c.x, c.y, c.z, c.w) under key (k.x, k.y): ten rounds, the key bumped by the
// Weyl constants between rounds (not before the first).
uvec4 ppl_philox4x32(uvec4 c, uvec2 k) {
  for (int round = 0; round < 10; round++) {
    if (round > 0) k += uvec2(0x9E3779B9u, 0xBB67AE85u);
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
  }
  return c;
}

// The keyed stream of packages/ppl/src/random/streams.ts:
//   key = (seed mod 2^32, seed / 2^32), counter = (chain, iteration, purpose | sub << 8, block).
uvec4 ppl_philox_stream(uvec2 seedKey, uint chain, uint iteration, uint purpose, uint sub, uint block) {
  return ppl_philox4x32(uvec4(chain, iteration, purpose | (sub << 8), block), seedKey);
}

// ---- shaders/prelude/real_f32.glsl
// Type header for the f32 instantiation of the prelude (see real_f64.glsl for the scheme).
// Same algorithms as f64, with single-precision thresholds and splits (fdlibm's *f variants).

#define REAL float
#define PPL_SFX(name) name##_f32

#define PPL_LN2_HI 6.9313812256e-01      // 0x3f317180: k*LN2_HI exact for |k| <= 128
#define PPL_LN2_LO 9.0580006145e-06      // 0x3717f7d1
#define PPL_EXP_OVERFLOW 8.8722839355e+01 // 0x42b17218, ~ln(FLT_MAX)
#define PPL_EXP_UNDERFLOW -1.0397208405e+02 // 0xc2cff1b5
#define PPL_EXP_TINY 6.103515625e-05      // 2^-14
#define PPL_EXPM1_SATURATE 1.8714973450e+01 // 27*ln2
#define PPL_EXPM1_TINY 2.98023223876953125e-08 // 2^-25
#define PPL_EXPM1_KSPLIT 23
#define PPL_TANH_SATURATE 9.0
#define PPL_TANH_TINY 2.44140625e-04      // 2^-12
#define PPL_ERF_SMALL 6.103515625e-05     // 2^-14
#define PPL_ALL_INTEGERS 8388608.0        // 2^23
#define PPL_SPLITTER 4097.0               // 2^12 + 1
#define PPL_EPS 5.9604644775390625e-08    // 2^-24, half an ulp of 1: the series' and fractions' stopping test
#define PPL_MIN_NORMAL 1.1754943508e-38   // 2^-126
#define REAL3 vec3                        // a dual number (value and two partial derivatives)
// The positive root of digamma, x0 = 1.46163214496836234126..., as a sum of three floats.
#define PPL_DIGAMMA_ROOT1 1.461632133e+00
#define PPL_DIGAMMA_ROOT2 1.243815007e-08
#define PPL_DIGAMMA_ROOT3 -1.265446444e-16

float ppl_nan_f32() { return uintBitsToFloat(0x7fc00000u); }
float ppl_inf_f32() { return uintBitsToFloat(0x7f800000u); }
#define PPL_NAN ppl_nan_f32()
#define PPL_INF ppl_inf_f32()

bool ppl_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool ppl_isinf(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u; }

// Sign bit, which also tells -0 from +0.
bool ppl_signbit(float x) { return (floatBitsToUint(x) >> 31) != 0u; }

// 2^e for e in [-126, 127].
float ppl_exp2i_f32(int e) { return uintBitsToFloat(uint(e + 127) << 23); }

// y * 2^k for k in [-252, 254] with two exact power-of-two factors (see the f64 version).
float ppl_scale(float y, int k) {
  int k1 = k / 2;
  precise float t = y * ppl_exp2i_f32(k1);
  precise float r = t * ppl_exp2i_f32(k - k1);
  return r;
}

// For finite x > 0: xm in [1, 2), x = xm * 2^k, and the top 20 significand bits (as for f64,
// so that fdlibm's thresholds on the high word apply unchanged).
float ppl_normalize(float x, out int k, out int hx) {
  int k0 = 0;
  uint b = floatBitsToUint(x);
  if (b < 0x00800000u) {  // subnormal (where the device keeps them): scale by 2^25 first
    b = floatBitsToUint(x * 33554432.0);
    k0 = -25;
  }
  k = k0 + int(b >> 23) - 127;
  hx = int((b & 0x007fffffu) >> 3);
  return uintBitsToFloat((b & 0x007fffffu) | 0x3f800000u);
}

// x with the low 13 significand bits cleared (fdlibm's erff and cosf use 0xffffe000): its square
// is exact and, for the arguments of erfc, so is -x^2 - 0.5625.
float ppl_clear_low(float x) { return uintBitsToFloat(floatBitsToUint(x) & 0xffffe000u); }

int ppl_biased_exponent(float x) { return int((floatBitsToUint(x) >> 23) & 0xffu); }

// x = n*pi/2 + y0 (y1 = 0): Cody-Waite with pi/2 split into three 8-bit parts and a float tail,
// so n*part is exact for |n| < 2^16; accurate to ~1 ulp of the result for |x| < 1e5, except
// within ~1e-10 of a multiple of pi/2, where the error stays ~1e-10 absolute.
int ppl_rem_pio2(float x, out float y0, out float y1) {
  y1 = 0.0;
  if (abs(x) <= 7.8539818525e-01) { y0 = x; return 0; }
  float fn = floor(x * 6.366197467e-01 + 0.5);
  precise float r = x - fn * 1.570312500e+00;
  r = r - fn * 4.825592041e-04;
  r = r - fn * 1.266598701e-06;
  r = r - fn * 9.920936295e-10;
  y0 = r;
  return int(fn);
}

// Uniform float in (0, 1) from two Philox words: the f64 uniform of ppl_uniform_f64 (and of
// packages/ppl/src/random/variates.ts) correctly rounded to float, computed with integer
// arithmetic so no double support is needed. The only exception: values that would round to
// 1.0 (probability 2^-25) return the largest float below 1, so that u < 1 always holds.
float ppl_uniform_f32(uint hi, uint lo) {
  // M = 2*(hi >> 12)*2^32 + 2*lo + 1 (53 bits) and u = M * 2^-53; split M as mh*2^32 + ml.
  uint mh = ((hi >> 12) << 1) | (lo >> 31);
  uint ml = (lo << 1) | 1u;
  int msb = mh != 0u ? 32 + findMSB(mh) : findMSB(ml);
  int shift = msb - 23;  // bits to drop to keep a 24-bit significand
  if (shift <= 0) return float(ml) * 1.1102230246251565e-16;  // M < 2^24: exact (ml < 2^24)
  // q = M >> shift, rem = M mod 2^shift, compared with half = 2^(shift-1).
  uint q;
  uint remHi;  // rem >> 32 (only when shift > 32)
  uint remLo;
  if (shift >= 32) {
    q = mh >> (shift - 32);
    remHi = shift == 32 ? 0u : mh & ((1u << (shift - 32)) - 1u);
    remLo = ml;
  } else {
    q = (mh << (32 - shift)) | (ml >> shift);
    remHi = 0u;
    remLo = ml & ((1u << shift) - 1u);
  }
  uint halfHi = shift > 32 ? 1u << (shift - 33) : 0u;
  uint halfLo = shift > 32 ? 0u : 1u << (shift - 1);
  bool above = remHi > halfHi || (remHi == halfHi && remLo > halfLo);
  bool tie = remHi == halfHi && remLo == halfLo;
  if (above || (tie && (q & 1u) == 1u)) q += 1u;
  float u = float(q) * ppl_exp2i_f32(shift - 53);
  return min(u, 0.99999994);
}

// ---- shaders/prelude/double_word.glsl
// Error-free transformations (Dekker 1971, Knuth TAOCP 4.2.2) for double-word arithmetic, used by
// pow and mod. Generic over REAL. Every temporary is `precise`: the compiler must neither fuse
// a*b+c into an fma nor reassociate, or the error terms come out as zero.

// a = hi + lo exactly, each half with at most half the significand bits (Veltkamp splitting).
void ppl_split(REAL a, out REAL hi, out REAL lo) {
  precise REAL c = PPL_SPLITTER * a;
  precise REAL h = c - (c - a);
  precise REAL l = a - h;
  hi = h;
  lo = l;
}

// a * b = p + e exactly (Dekker's product); needs |a|, |b| far from overflow.
void ppl_two_prod(REAL a, REAL b, out REAL p, out REAL e) {
  REAL ah, al, bh, bl;
  ppl_split(a, ah, al);
  ppl_split(b, bh, bl);
  precise REAL pp = a * b;
  precise REAL ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
  p = pp;
  e = ee;
}

// a + b = s + e exactly (Knuth's two-sum, no ordering requirement).
void ppl_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL bb = ss - a;
  precise REAL ee = (a - (ss - bb)) + (b - bb);
  s = ss;
  e = ee;
}

// a + b = s + e exactly when |a| >= |b| or a == 0 (Dekker's fast two-sum).
void ppl_fast_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL ee = b - (ss - a);
  s = ss;
  e = ee;
}

// ---- shaders/prelude/basic.glsl
// Elementwise basics with the CPU backend's semantics (packages/tensor/src/cpu/scalar.ts).
// Generic over REAL (see real_f64.glsl).

REAL ppl_abs(REAL x) { return abs(x); }
REAL ppl_neg(REAL x) { return -x; }
REAL ppl_floor(REAL x) { return floor(x); }
REAL ppl_ceil(REAL x) { return ceil(x); }
REAL ppl_square(REAL x) { return x * x; }
REAL ppl_reciprocal(REAL x) { return 1.0 / x; }

// sign: +1, -1, and x itself for +-0 and NaN (like the CPU, unlike GLSL's sign on NaN).
REAL ppl_sign(REAL x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x); }

// sqrt is correctly rounded for both types in Vulkan (SPIR-V Sqrt on double is exact on
// lavapipe and NVIDIA); rsqrt is 1/sqrt rather than inversesqrt, whose f64 precision is unspecified.
REAL ppl_sqrt(REAL x) { return sqrt(x); }
REAL ppl_rsqrt(REAL x) { return 1.0 / sqrt(x); }

// max/min with the CPU's NaN rule: NaN in either argument gives NaN.
REAL ppl_max(REAL a, REAL b) { return (a >= b || ppl_isnan(a)) ? a : b; }
REAL ppl_min(REAL a, REAL b) { return (a <= b || ppl_isnan(a)) ? a : b; }

// Python-style remainder (sign of the divisor), as the CPU's mod: r = a - trunc(a/b)*b with the
// product formed exactly (Dekker), then one correction step for a rounded-up quotient and the
// shift by b when the signs of r and b differ. Exact while |a/b| < 2^52 (2^23 for f32); for larger
// quotients (huge a, tiny b) the result is inaccurate or NaN: no bitwise long division is done.
REAL ppl_mod(REAL a, REAL b) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isinf(a) || b == 0.0) return PPL_NAN;
  if (ppl_isinf(b)) return (a != 0.0 && (a < 0.0) != (b < 0.0)) ? b : a;
  precise REAL q = trunc(a / b);
  REAL p, e;
  ppl_two_prod(q, b, p, e);
  precise REAL r = (a - p) - e;
  // a/b rounded away from zero past an integer: r has the wrong sign; step q back by one.
  if (r != 0.0 && (r < 0.0) != (a < 0.0)) r = ((a < 0.0) == (b < 0.0)) ? r + b : r - b;
  if (r != 0.0 && (r < 0.0) != (b < 0.0)) r += b;
  return r;
}

REAL ppl_nan(REAL like) { return PPL_NAN; }
REAL ppl_inf(REAL like) { return PPL_INF; }

// ---- shaders/prelude/exp.glsl
// exp(x): fdlibm e_exp.c (as in V8, so f64 results match JS Math.exp), error < 1 ulp.
// Method: x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 = LN2_HI + LN2_LO, k*LN2_HI exact);
// exp(r) = 1 + 2r/(2 - R(r)) with R a degree-10 minimax polynomial in r (5 terms in r^2);
// then scale by 2^k. Generic over REAL; temporaries are `precise` because the formulas rely on
// the exact order of IEEE operations.

// 1 - ((lo - r*c/(2-c)) - hi) scaled by 2^k, for r = hi - lo.
REAL ppl_exp_kernel(REAL hi, REAL lo, int k) {
  precise REAL r = hi - lo;
  precise REAL t = r * r;
  precise REAL c = r - t * (1.66666666666666019037e-01 + t * (-2.77777777770155933842e-03
      + t * (6.61375632143793436117e-05 + t * (-1.65339022054652515390e-06
      + t * 4.13813679705723846039e-08))));
  precise REAL y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  return ppl_scale(y, k);
}

// exp(xh + xl) for a double-word argument (|xl| <= ulp(xh)): the tail joins the reduced argument.
REAL ppl_exp_dw(REAL xh, REAL xl) {
  if (ppl_isnan(xh)) return xh;
  if (xh > PPL_EXP_OVERFLOW) return PPL_INF;
  if (xh < PPL_EXP_UNDERFLOW) return 0.0;
  int k = int(1.44269504088896338700e+00 * xh + (xh < 0.0 ? -0.5 : 0.5));
  REAL fk = REAL(k);
  precise REAL hi = xh - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO - xl;
  return ppl_exp_kernel(hi, lo, k);
}

REAL ppl_exp(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  if (x < PPL_EXP_UNDERFLOW) return 0.0;
  REAL ax = abs(x);
  if (ax < PPL_EXP_TINY) return 1.0 + x;
  // |x| <= ln2/2 takes k = 0, so hi = x and lo = 0 and the kernel computes fdlibm's k = 0 formula
  // 1 - ((x*c)/(c - 2) - x) to the bit (0 - q = -q, and (x*c)/(2 - c) is that quotient negated).
  // A select instead of a separate path: a subgroup whose lanes straddle ln2/2 runs one path, not both.
  int k = ax <= 3.46573590279972654709e-01 ? 0 : int(1.44269504088896338700e+00 * x + (x < 0.0 ? -0.5 : 0.5));
  REAL fk = REAL(k);
  precise REAL hi = x - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO;
  return ppl_exp_kernel(hi, lo, k);
}

// ---- shaders/prelude/log.glsl
// log(x) and log1p(x): fdlibm e_log.c and s_log1p.c (as in V8, so f64 log matches JS Math.log),
// error < 1 ulp. Method: x = 2^k * (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2));
// log(1 + f) = f - f^2/2 + s*(f^2/2 + R(z)) with s = f/(2 + f), z = s^2 and R a degree-14
// minimax polynomial (the atanh series 2s + 2s^3/3 + ... rearranged); k*ln2 added in two parts.
// log1p additionally carries the rounding error of 1 + x as a correction c/u.
// Generic over REAL; temporaries are `precise` (exact operation order matters).

REAL ppl_log(REAL x) {
  if (ppl_isnan(x) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  int k;
  int hx;
  REAL m = ppl_normalize(x, k, hx);  // x = m * 2^k, m in [1, 2); hx = top 20 bits of m - 1
  // fdlibm: (hx + 0x95f64) & 0x100000 is set when m >= ~sqrt(2); then use m/2 and k + 1.
  int i = (hx + 0x95f64) & 0x100000;
  if (i != 0) {
    m *= 0.5;
    k += 1;
  }
  precise REAL f = m - 1.0;
  REAL dk = REAL(k);
  if ((0x000fffff & (2 + hx)) < 3) {  // -2^-20 <= f < 2^-20
    if (f == 0.0) {
      if (k == 0) return 0.0;
      precise REAL res0 = dk * PPL_LN2_HI + dk * PPL_LN2_LO;
      return res0;
    }
    precise REAL r0 = f * f * (0.5 - 0.33333333333333333 * f);
    precise REAL res1 = (k == 0) ? f - r0 : dk * PPL_LN2_HI - ((r0 - dk * PPL_LN2_LO) - f);
    return res1;
  }
  precise REAL s = f / (2.0 + f);
  precise REAL z = s * s;
  int i2 = hx - 0x6147a;
  precise REAL w = z * z;
  int j = 0x6b851 - hx;
  precise REAL t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01
      + w * 1.531383769920937332e-01));
  precise REAL t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01
      + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  i2 |= j;
  precise REAL r = t2 + t1;
  precise REAL res;
  if (i2 > 0) {
    precise REAL hfsq = 0.5 * f * f;
    if (k == 0) res = f - (hfsq - s * (hfsq + r));
    else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + dk * PPL_LN2_LO)) - f);
  } else {
    if (k == 0) res = f - s * (f - r);
    else res = dk * PPL_LN2_HI - ((s * (f - r) - dk * PPL_LN2_LO) - f);
  }
  return res;
}

REAL ppl_log1p(REAL x) {
  if (ppl_isnan(x) || x < -1.0) return PPL_NAN;
  if (x == -1.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  REAL ax = abs(x);
  if (ax < 1.862645149230957e-09) {  // |x| < 2^-29: x - x^2/2 is exact to rounding
    precise REAL t = x - x * x * 0.5;
    return (ax < 5.551115123125783e-17) ? x : t;
  }
  int k = 1;
  precise REAL f;
  precise REAL c = 0.0;
  int hu = 1;
  if (x < 4.142135623730950488017e-01 && x > -2.928932188134524755992e-01) {
    // 1 + x in (sqrt(2)/2, sqrt(2)): no reduction, f = x exactly.
    k = 0;
    f = x;
  } else {
    precise REAL u = 1.0 + x;
    if (x < PPL_ALL_INTEGERS) {
      // c = (1 + x) - u, the rounding error of u, relative to u.
      c = (u >= 2.0) ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    }
    int hx;
    REAL m = ppl_normalize(u, k, hx);
    // As in log: switch to [sqrt(2)/2, 1) when m >= ~sqrt(2) (fdlibm's 0x6a09e threshold).
    hu = hx;
    if (hx >= 0x6a09e) {
      m *= 0.5;
      k += 1;
      hu = (0x100000 - hx) >> 2;  // zero when m is within 2^-20 of 2, i.e. |f| < 2^-20
    }
    f = m - 1.0;
  }
  REAL dk = REAL(k);
  precise REAL hfsq = 0.5 * f * f;
  if (hu == 0) {  // |f| < 2^-20 (only reachable with k != 0)
    if (f == 0.0) {
      precise REAL res0 = dk * PPL_LN2_HI + (c + dk * PPL_LN2_LO);
      return res0;
    }
    precise REAL r0 = hfsq * (1.0 - 0.66666666666666666 * f);
    precise REAL res1 = dk * PPL_LN2_HI - ((r0 - (dk * PPL_LN2_LO + c)) - f);
    return res1;
  }
  precise REAL s = f / (2.0 + f);
  precise REAL z = s * s;
  precise REAL r = z * (6.666666666666735130e-01 + z * (3.999999999940941908e-01
      + z * (2.857142874366239149e-01 + z * (2.222219843214978396e-01
      + z * (1.818357216161805012e-01 + z * (1.531383769920937332e-01
      + z * 1.479819860511658591e-01))))));
  precise REAL res;
  if (k == 0) res = f - (hfsq - s * (hfsq + r));
  else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * PPL_LN2_LO + c))) - f);
  return res;
}

// ---- shaders/prelude/expm1.glsl
// expm1(x) = exp(x) - 1 without cancellation near 0: fdlibm s_expm1.c, error < 1 ulp.
// Method: x = k*ln2 + r (Cody-Waite, with the rounding error of r kept in c); on |r| <= ln2/2
// expm1(r) = r + r^2/2 + r^3/2 * (3 - (R1 + R1*r/2))/(6 - r*(3 - R1*r/2)) with a rational
// approximation R1 in r^2 (5 terms); then 2^k*(expm1(r) - c + 1) - 1, rearranged per range of k
// to stay exact. Generic over REAL.

REAL ppl_expm1(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x == 0.0) return x;  // keeps -0
  REAL ax = abs(x);
  if (ax >= PPL_EXPM1_SATURATE) {
    if (x < 0.0) return -1.0;
    if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  }
  int k = 0;
  precise REAL c = 0.0;
  precise REAL xr = x;
  if (ax > 3.46573590279972654709e-01) {  // |x| > ln2/2: reduce
    precise REAL hi;
    precise REAL lo;
    if (ax < 1.03972077083991796413e+00) {  // |x| < 1.5*ln2: k = +-1
      if (x > 0.0) { hi = x - PPL_LN2_HI; lo = PPL_LN2_LO; k = 1; }
      else { hi = x + PPL_LN2_HI; lo = -PPL_LN2_LO; k = -1; }
    } else {
      k = int(1.44269504088896338700e+00 * x + (x < 0.0 ? -0.5 : 0.5));
      REAL t = REAL(k);
      hi = x - t * PPL_LN2_HI;  // exact
      lo = t * PPL_LN2_LO;
    }
    xr = hi - lo;
    c = (hi - xr) - lo;
  } else if (ax < PPL_EXPM1_TINY) {
    return x;
  }
  precise REAL hfx = 0.5 * xr;
  precise REAL hxs = xr * hfx;
  precise REAL r1 = 1.0 + hxs * (-3.33333333333331316428e-02 + hxs * (1.58730158725481460165e-03
      + hxs * (-7.93650757867487942473e-05 + hxs * (4.00821782732936239552e-06
      + hxs * -2.01099218183624371326e-07))));
  precise REAL t = 3.0 - r1 * hfx;
  precise REAL e = hxs * ((r1 - t) / (6.0 - xr * t));
  if (k == 0) {
    precise REAL y0 = xr - (xr * e - hxs);  // c is 0
    return y0;
  }
  e = (xr * (e - c) - c);
  e -= hxs;
  if (k == -1) {
    precise REAL ym = 0.5 * (xr - e) - 0.5;
    return ym;
  }
  if (k == 1) {
    precise REAL yp = (xr < -0.25) ? -2.0 * (e - (xr + 0.5)) : 1.0 + 2.0 * (xr - e);
    return yp;
  }
  if (k <= -2 || k > 56) {  // exp(x) - 1 directly: the -1 is negligible or the result is ~-1
    precise REAL y = 1.0 - (e - xr);
    y = ppl_scale(y, k);
    precise REAL y1 = y - 1.0;
    return y1;
  }
  precise REAL y;
  if (k < PPL_EXPM1_KSPLIT) {
    precise REAL u = 1.0 - ppl_scale(1.0, -k);  // 1 - 2^-k, exact
    y = u - (e - xr);
  } else {
    precise REAL u = ppl_scale(1.0, -k);  // 2^-k
    y = xr - (e + u);
    y += 1.0;
  }
  precise REAL y2 = ppl_scale(y, k);
  return y2;
}

// ---- shaders/prelude/trig.glsl
// sin, cos, and sin(pi x), cos(pi x): fdlibm s_sin.c / s_cos.c with the kernels k_sin.c, k_cos.c
// (as in V8, so f64 results match JS Math.sin/Math.cos where the reduction is exact), error < 1 ulp.
// Range reduction is ppl_rem_pio2 (per type, in real_f32.glsl / real_f64.glsl): Cody-Waite
// with a 3-part pi/2 for f64, exact for |x| < ~8e5; the f32 one is accurate for |x| < 1e5.
// The kernels take the reduced argument as a double-word y0 + y1. Generic over REAL.

// sin(x + y) on |x| <= pi/4, y the tail of x; iy = 0 means y is known to be 0.
REAL ppl_kernel_sin(REAL x, REAL y, int iy) {
  if (abs(x) < 7.450580596923828125e-09) return x;  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL v = z * x;
  precise REAL r = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04
      + z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08
      + z * 1.58969099521155010221e-10)));
  precise REAL res;
  if (iy == 0) res = x + v * (-1.66666666666666324348e-01 + z * r);
  else res = x - ((z * (0.5 * y - v * r) - y) - v * -1.66666666666666324348e-01);
  return res;
}

// cos(x + y) on |x| <= pi/4. For |x| >= 0.3, 1 - qx and x^2/2 - qx are exact (qx ~ x/4 with its
// low bits cleared), which keeps the subtraction accurate.
REAL ppl_kernel_cos(REAL x, REAL y) {
  REAL ax = abs(x);
  if (ax < 7.450580596923828125e-09) return 1.0;  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL r = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03
      + z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07
      + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
  precise REAL res;
  if (ax < 0.3) {
    res = 1.0 - (0.5 * z - (z * r - x * y));
  } else {
    REAL qx = (ax > 0.78125) ? 0.28125 : ppl_clear_low(ax * 0.25);
    precise REAL hz = 0.5 * z - qx;
    precise REAL a = 1.0 - qx;
    res = a - (hz - (z * r - x * y));
  }
  return res;
}

REAL ppl_sin(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  if (abs(x) <= 7.85398163397448278999e-01) return ppl_kernel_sin(x, 0.0, 0);
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
  if (abs(x) <= 7.85398163397448278999e-01) return ppl_kernel_cos(x, 0.0);
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
  const REAL PI = 3.141592653589793116;
  precise REAL r = x - 2.0 * trunc(x * 0.5);  // x mod 2 with the sign of x, exact
  REAL ar = abs(r);
  REAL sg = r < 0.0 ? -1.0 : 1.0;
  if (ar == 0.0 || ar == 1.0) return sg * 0.0;
  if (ar < 0.25) return ppl_sin(PI * r);
  if (ar < 0.75) return sg * ppl_cos(PI * (0.5 - ar));
  if (ar < 1.25) return ppl_sin(PI * (sg - r));
  if (ar < 1.75) return -sg * ppl_cos(PI * (ar - 1.5));
  return ppl_sin(PI * (r - 2.0 * sg));
}

// cos(pi*x), exactly zero at half-integers.
REAL ppl_cospi(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  const REAL PI = 3.141592653589793116;
  REAL ar = abs(x - 2.0 * trunc(x * 0.5));  // |x| mod 2, exact
  if (ar == 0.5 || ar == 1.5) return 0.0;
  if (ar < 0.25) return ppl_cos(PI * ar);
  if (ar < 0.75) return ppl_sin(PI * (0.5 - ar));
  if (ar < 1.25) return -ppl_cos(PI * (1.0 - ar));
  if (ar < 1.75) return ppl_sin(PI * (ar - 1.5));
  return ppl_cos(PI * (2.0 - ar));
}

// ---- shaders/prelude/tanh.glsl
// tanh(x): fdlibm s_tanh.c, error < ~2 ulp. Built on expm1 so that small |x| keeps full relative
// accuracy: for |x| >= 1, tanh = 1 - 2/(expm1(2|x|) + 2); for |x| < 1, -t/(t + 2) with
// t = expm1(-2|x|); |x| >= 22 (9 for f32) is +-1 to working precision. Generic over REAL.

REAL ppl_tanh(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL z;
  if (ax >= PPL_TANH_SATURATE) {
    z = 1.0;
  } else if (ax < PPL_TANH_TINY) {
    return x;
  } else if (ax >= 1.0) {
    REAL t = ppl_expm1(2.0 * ax);
    z = 1.0 - 2.0 / (t + 2.0);
  } else {
    REAL t = ppl_expm1(-2.0 * ax);
    z = -t / (t + 2.0);
  }
  return x < 0.0 ? -z : z;
}

// ---- shaders/prelude/logistic.glsl
// sigmoid, softplus and log_sigmoid, written exactly as the CPU backend's formulas
// (packages/tensor/src/cpu/scalar.ts) so that both backends round the same way.
// Generic over REAL.

// 1/(1 + exp(-x)) without overflow: for x < 0 use e/(1 + e) with e = exp(x) <= 1. Both cases
// take e = exp(-|x|) (that is exp(-x) for x >= 0 and exp(x) below), so that a subgroup with
// lanes of both signs evaluates one exp, not one in each branch.
REAL ppl_sigmoid(REAL x) {
  REAL e = ppl_exp(-abs(x));
  return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);  // NaN: e is NaN, and so is the result
}

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for x > 0, log1p(exp(x)) otherwise; as
// in ppl_sigmoid, both are log1p(exp(-|x|)), computed once.
REAL ppl_softplus(REAL x) {
  REAL l = ppl_log1p(ppl_exp(-abs(x)));
  return x > 0.0 ? x + l : l;
}

// log(sigmoid(x)) = -softplus(-x).
REAL ppl_log_sigmoid(REAL x) { return -ppl_softplus(-x); }

// ---- shaders/prelude/atan2.glsl
// atan(x) and atan2(y, x): fdlibm s_atan.c and e_atan2.c, error < 1 ulp.
// atan: reduce |x| to [0, 7/16] with atan(x) = atan(c) + atan((x - c)/(1 + c x)) for
// c in {1/2, 1, 3/2, inf}, the table values atan(c) kept in two parts; odd minimax polynomial
// of degree 23. atan2 handles signs, zeros and infinities as C99/IEEE (= JS Math.atan2).
// Generic over REAL.

REAL ppl_atan(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax >= 7.378697629483820646e+19) {  // |x| >= 2^66: +-pi/2
    precise REAL h = 1.57079632679489655800e+00 + 6.12323399573676603587e-17;
    return x > 0.0 ? h : -h;
  }
  int id;
  precise REAL t;
  if (ax < 0.4375) {
    if (ax < 7.450580596923828125e-09) return x;  // |x| < 2^-27
    id = -1;
    t = x;
  } else if (ax < 0.6875) {
    id = 0;
    t = (2.0 * ax - 1.0) / (2.0 + ax);
  } else if (ax < 1.1875) {
    id = 1;
    t = (ax - 1.0) / (ax + 1.0);
  } else if (ax < 2.4375) {
    id = 2;
    t = (ax - 1.5) / (1.0 + 1.5 * ax);
  } else {
    id = 3;
    t = -1.0 / ax;
  }
  precise REAL z = t * t;
  precise REAL w = z * z;
  // Odd and even halves of sum_{i=0..10} aT[i] z^(i+1), as fdlibm splits them.
  precise REAL s1 = z * (3.33333333333329318027e-01 + w * (1.42857142725034663711e-01
      + w * (9.09088713343650656196e-02 + w * (6.66107313738753120669e-02
      + w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))));
  precise REAL s2 = w * (-1.99999999998764832476e-01 + w * (-1.11111104054623557880e-01
      + w * (-7.69187620504482999495e-02 + w * (-5.83357013379057348645e-02
      + w * -3.65315727442169155270e-02))));
  if (id < 0) {
    precise REAL r0 = t - t * (s1 + s2);
    return r0;
  }
  REAL hi = id == 0 ? 4.63647609000806093515e-01 : id == 1 ? 7.85398163397448278999e-01
          : id == 2 ? 9.82793723247329054082e-01 : 1.57079632679489655800e+00;
  REAL lo = id == 0 ? 2.26987774529616870924e-17 : id == 1 ? 3.06161699786838301793e-17
          : id == 2 ? 1.39033110312309984516e-17 : 6.12323399573676603587e-17;
  precise REAL r = hi - ((t * (s1 + s2) - lo) - t);
  return x < 0.0 ? -r : r;
}

REAL ppl_atan2(REAL y, REAL x) {
  const REAL PI = 3.14159265358979311600e+00;
  const REAL PI_LO = 1.22464679914735317720e-16;
  const REAL PIO2 = 1.57079632679489655800e+00;
  const REAL PIO4 = 7.85398163397448278999e-01;
  if (ppl_isnan(x) || ppl_isnan(y)) return PPL_NAN;
  // Sign bits, so that -0 counts as negative (atan2(+0, -0) = pi, atan2(-0, +0) = -0).
  bool yneg = ppl_signbit(y);
  bool xneg = ppl_signbit(x);
  if (y == 0.0) return xneg ? (yneg ? -PI : PI) : y;
  if (x == 0.0) return yneg ? -PIO2 : PIO2;
  if (ppl_isinf(x)) {
    if (ppl_isinf(y)) {
      REAL a = xneg ? 3.0 * PIO4 : PIO4;
      return yneg ? -a : a;
    }
    REAL b = xneg ? PI : 0.0;
    return yneg ? -b : b;
  }
  if (ppl_isinf(y)) return yneg ? -PIO2 : PIO2;
  REAL q = abs(y / x);
  REAL z = ppl_atan(q);  // |y/x| overflowing to inf gives pi/2, underflowing to 0 gives 0
  precise REAL res;
  if (!xneg) res = z;
  else res = PI - (z - PI_LO);
  return yneg ? -res : res;
}

// ---- shaders/prelude/pow.glsl
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
    m *= 0.5;
    k += 1;
  }
  precise REAL f = m - 1.0;  // exact
  REAL dh, dl;
  ppl_fast_two_sum(2.0, f, dh, dl);  // 2 + f = dh + dl exactly
  precise REAL sh = f / dh;
  REAL ph, pl;
  ppl_two_prod(sh, dh, ph, pl);
  precise REAL sl = (((f - ph) - pl) - sh * dl) / dh;  // s - sh, from the exact residual
  precise REAL z = sh * sh;
  precise REAL tail = 2.0 * sh * z * (0.33333333333333333333 + z * (0.2 + z * (0.14285714285714285714
      + z * (0.11111111111111111111 + z * (0.09090909090909090909 + z * (0.07692307692307692308
      + z * (0.06666666666666666667 + z * (0.05882352941176470588 + z * (0.05263157894736842105
      + z * (0.04761904761904761905 + z * (0.04347826086956521739 + z * 0.04)))))))))));
  REAL ah, al;
  ppl_fast_two_sum(2.0 * sh, 2.0 * sl + tail, ah, al);
  REAL dk = REAL(k);
  REAL bh, bl;
  ppl_two_sum(dk * PPL_LN2_HI, ah, bh, bl);  // dk * LN2_HI is exact
  precise REAL lo = bl + (al + dk * PPL_LN2_LO);
  ppl_fast_two_sum(bh, lo, lh, ll);
}

REAL ppl_pow(REAL x, REAL y) {
  if (ppl_isnan(y)) return PPL_NAN;
  if (y == 0.0) return 1.0;
  if (ppl_isnan(x)) return PPL_NAN;
  REAL ax = abs(x);
  if (ppl_isinf(y)) {
    if (ax == 1.0) return PPL_NAN;
    return ((ax > 1.0) == (y > 0.0)) ? PPL_INF : 0.0;
  }
  bool yint = floor(y) == y;
  bool yodd = yint && floor(y * 0.5) != y * 0.5;  // |y| >= 2^53 (2^24) is always even
  if (x == 0.0) {  // +-0: the sign survives only for odd integer y
    if (y > 0.0) return yodd ? x : 0.0;
    return (yodd && ppl_signbit(x)) ? -PPL_INF : PPL_INF;
  }
  if (ppl_isinf(x)) {
    if (x > 0.0) return y > 0.0 ? PPL_INF : 0.0;
    if (y > 0.0) return yodd ? -PPL_INF : PPL_INF;
    return yodd ? 1.0 / x : 0.0;  // -0 or +0
  }
  REAL sgn = 1.0;
  if (x < 0.0) {
    if (!yint) return PPL_NAN;
    if (yodd) sgn = -1.0;
  }
  if (ax == 1.0) return sgn;
  REAL lh, ll;
  ppl_log_dw(ax, lh, ll);
  REAL w0 = y * lh;
  // Far outside the exp range: decide before forming the exact product (which could overflow).
  if (w0 > 2.0 * PPL_EXP_OVERFLOW) return sgn * PPL_INF;
  if (w0 < 2.0 * PPL_EXP_UNDERFLOW) return sgn * 0.0;
  REAL wh, wl;
  ppl_two_prod(y, lh, wh, wl);
  precise REAL wlo = wl + y * ll;
  REAL eh, el;
  ppl_fast_two_sum(wh, wlo, eh, el);
  return sgn * ppl_exp_dw(eh, el);
}

// ---- shaders/prelude/erf.glsl
// erf and erfc: fdlibm s_erf.c (the scheme of W. J. Cody's rational approximations, as ported by
// stdlib, the CPU reference), error < 1 ulp; erfc keeps full relative accuracy in the right tail
// up to its underflow at x ~ 27 (f64). Intervals:
//   |x| < 0.84375:        erf = x + x*P(x^2)/Q(x^2)
//   0.84375 <= |x| < 1.25: erf = erx + P(s)/Q(s), s = |x| - 1
//   1.25 <= |x| < 28:      erfc = exp(-z^2 - 0.5625) * exp((z - x)(z + x) + R(1/x^2)/S(1/x^2)) / x,
//                          z = x with its low bits cleared so that z^2 is exact.
// Generic over REAL.

REAL ppl_erf_pp(REAL z) {
  return 1.28379167095512558561e-01 + z * (-0.3250421072470015 + z * (-0.02848174957559851
      + z * (-0.005770270296489442 + z * -0.000023763016656650163)));
}
REAL ppl_erf_qq(REAL z) {
  return 1.0 + z * (0.39791722395915535 + z * (0.0650222499887673 + z * (0.005081306281875766
      + z * (0.00013249473800432164 + z * -0.000003960228278775368))));
}
REAL ppl_erf_pa(REAL s) {
  return -2.36211856075265944077e-03 + s * (0.41485611868374833 + s * (-0.3722078760357013
      + s * (0.31834661990116175 + s * (-0.11089469428239668 + s * (0.035478304325618236
      + s * -0.002166375594868791)))));
}
REAL ppl_erf_qa(REAL s) {
  return 1.0 + s * (0.10642088040084423 + s * (0.540397917702171 + s * (0.07182865441419627
      + s * (0.12617121980876164 + s * (0.01363708391202905 + s * 0.011984499846799107)))));
}

// exp(-x^2 - 0.5625 + R/S) / x for 1.25 <= x < 28: the common tail of erf and erfc.
REAL ppl_erfc_tail(REAL ax) {
  REAL s = 1.0 / (ax * ax);
  REAL r;
  REAL q;
  if (ax < 2.857142857142857) {  // 1/0.35
    r = -9.86494403484714822705e-03 + s * (-0.6938585727071818 + s * (-10.558626225323291
        + s * (-62.375332450326006 + s * (-162.39666946257347 + s * (-184.60509290671104
        + s * (-81.2874355063066 + s * -9.814329344169145))))));
    q = 1.0 + s * (19.651271667439257 + s * (137.65775414351904 + s * (434.56587747522923
        + s * (645.3872717332679 + s * (429.00814002756783 + s * (108.63500554177944
        + s * (6.570249770319282 + s * -0.0604244152148581)))))));
  } else {
    r = -9.86494292470009928597e-03 + s * (-0.799283237680523 + s * (-17.757954917754752
        + s * (-160.63638485582192 + s * (-637.5664433683896 + s * (-1025.0951316110772
        + s * -483.5191916086514)))));
    q = 1.0 + s * (30.33806074348246 + s * (325.7925129965739 + s * (1536.729586084437
        + s * (3199.8582195085955 + s * (2553.0504064331644 + s * (474.52854120695537
        + s * -22.44095244658582))))));
  }
  REAL z = ppl_clear_low(ax);
  precise REAL d = (z - ax) * (z + ax);
  return ppl_exp(-z * z - 0.5625) * ppl_exp(d + r / q) / ax;
}

REAL ppl_erf(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL sg = x < 0.0 ? -1.0 : 1.0;
  if (ax < 0.84375) {
    if (ax < PPL_ERF_SMALL) return x + 1.28379167095512586316e-01 * x;
    REAL z = x * x;
    return x + x * (ppl_erf_pp(z) / ppl_erf_qq(z));
  }
  if (ax < 1.25) {
    REAL s = ax - 1.0;
    return sg * (8.45062911510467529297e-01 + ppl_erf_pa(s) / ppl_erf_qa(s));
  }
  if (ax >= 6.0) return sg;
  return sg * (1.0 - ppl_erfc_tail(ax));
}

REAL ppl_erfc(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax < 0.84375) {
    if (ax < 1.3877787807814457e-17) return 1.0 - x;  // |x| < 2^-56
    REAL z = x * x;
    REAL y = ppl_erf_pp(z) / ppl_erf_qq(z);
    if (x < 0.25) return 1.0 - (x + x * y);
    return 0.5 - (x * y + (x - 0.5));
  }
  if (ax < 1.25) {
    REAL s = ax - 1.0;
    REAL pq = ppl_erf_pa(s) / ppl_erf_qa(s);
    return x < 0.0 ? 1.0 + 8.45062911510467529297e-01 + pq
                      : 1.0 - 8.45062911510467529297e-01 - pq;
  }
  if (ax < 28.0) {
    if (x < -6.0) return 2.0;
    REAL t = ppl_erfc_tail(ax);
    return x < 0.0 ? 2.0 - t : t;
  }
  return x < 0.0 ? 2.0 : 0.0;
}

// ---- shaders/prelude/lgamma.glsl
// lgamma(x) = log|Gamma(x)|: fdlibm e_lgamma_r.c (as ported by stdlib's gammaln, the CPU
// reference), error < ~1 ulp away from the zeros at 1 and 2 and small absolute error near them.
// Intervals: [0, 2) by minimax approximations around 1, 2 and the minimum 1.4616 (so the
// zeros at 1 and 2 come out with full relative accuracy); [2, 8) by a rational approximation
// of lgamma(2 + f) and the recurrence; [8, 2^56) by Stirling's series; negative non-integers
// by the reflection lgamma(-x) = log(pi / |x sin(pi x)|) - lgamma(x) (sin(pi x) from ppl_sinpi).
// Poles (0 and negative integers) give +inf; +-inf give +-inf (as the CPU). Generic over REAL.

REAL ppl_lgamma(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return x;  // lgamma(-inf) = -inf, as the CPU reference
  if (x == 0.0) return PPL_INF;
  bool neg = x < 0.0;
  REAL ax = abs(x);
  if (ax < 1.3877787807814457e-17) return -ppl_log(ax);  // |x| < 2^-56
  REAL nadj = 0.0;
  if (neg) {
    if (ax >= PPL_ALL_INTEGERS) return PPL_INF;
    REAL t = ppl_sinpi(ax);
    if (t == 0.0) return PPL_INF;
    nadj = ppl_log(3.14159265358979311600e+00 / abs(t * ax));
  }
  if (ax == 1.0 || ax == 2.0) return neg ? nadj : 0.0;
  REAL r;
  const REAL YMIN = 1.461632144968362245;
  const REAL TC = 1.46163214496836224576e+00;
  if (ax < 2.0) {
    REAL y;
    int flg;
    if (ax <= 0.9) {
      r = -ppl_log(ax);
      if (ax >= YMIN - 1.0 + 0.27) { y = 1.0 - ax; flg = 0; }
      else if (ax >= YMIN - 1.0 - 0.27) { y = ax - (TC - 1.0); flg = 1; }
      else { y = ax; flg = 2; }
    } else {
      r = 0.0;
      if (ax >= YMIN + 0.27) { y = 2.0 - ax; flg = 0; }
      else if (ax >= YMIN - 0.27) { y = ax - TC; flg = 1; }
      else { y = ax - 1.0; flg = 2; }
    }
    if (flg == 0) {
      REAL z = y * y;
      REAL p1 = 7.72156649015328655494e-02 + z * (0.06735230105312927 + z * (0.007385550860814029
          + z * (0.0011927076318336207 + z * (0.00022086279071390839 + z * 0.000025214456545125733))));
      REAL p2 = z * (3.22467033424113591611e-01 + z * (0.020580808432516733 + z * (0.0028905138367341563
          + z * (0.0005100697921535113 + z * (0.00010801156724758394 + z * 0.000044864094961891516)))));
      REAL p = y * p1 + p2;
      r += p - 0.5 * y;
    } else if (flg == 1) {
      REAL z = y * y;
      REAL w = z * y;
      REAL p1 = 4.83836122723810047042e-01 + w * (-0.032788541075985965 + w * (0.006100538702462913
          + w * (-0.0014034646998923284 + w * 0.00031563207090362595)));
      REAL p2 = -1.47587722994593911752e-01 + w * (0.01797067508118204 + w * (-0.0036845201678113826
          + w * (0.000881081882437654 + w * -0.00031275416837512086)));
      REAL p3 = 6.46249402391333854778e-02 + w * (-0.010314224129834144 + w * (0.0022596478090061247
          + w * (-0.0005385953053567405 + w * 0.0003355291926355191)));
      REAL p = z * p1 - (-3.63867699703950536541e-18 - w * (p2 + y * p3));
      r += -1.21486290535849611461e-01 + p;
    } else {
      REAL p1 = y * (-7.72156649015328655494e-02 + y * (0.6328270640250934 + y * (1.4549225013723477
          + y * (0.9777175279633727 + y * (0.22896372806469245 + y * 0.013381091853678766)))));
      REAL p2 = 1.0 + y * (2.4559779371304113 + y * (2.128489763798934 + y * (0.7692851504566728
          + y * (0.10422264559336913 + y * 0.003217092422824239))));
      r += -0.5 * y + p1 / p2;
    }
  } else if (ax < 8.0) {
    int i = int(ax);
    REAL y = ax - REAL(i);
    REAL p = y * (-7.72156649015328655494e-02 + y * (0.21498241596060885 + y * (0.325778796408931
        + y * (0.14635047265246445 + y * (0.02664227030336386 + y * (0.0018402845140733772
        + y * 0.00003194753265841009))))));
    REAL q = 1.0 + y * (1.3920053346762105 + y * (0.7219355475671381 + y * (0.17193386563280308
        + y * (0.01864591917156529 + y * (0.0007779424963818936 + y * 0.000007326684307446256)))));
    r = 0.5 * y + p / q;
    REAL z = 1.0;  // lgamma(1 + s) = log(s) + lgamma(s)
    if (i >= 7) z *= y + 6.0;
    if (i >= 6) z *= y + 5.0;
    if (i >= 5) z *= y + 4.0;
    if (i >= 4) z *= y + 3.0;
    if (i >= 3) {
      z *= y + 2.0;
      r += ppl_log(z);
    }
  } else if (ax < 72057594037927936.0) {  // 2^56
    REAL t = ppl_log(ax);
    REAL z = 1.0 / ax;
    REAL y = z * z;
    REAL w = 4.18938533204672725052e-01 + z * (0.08333333333333297 + y * (-0.0027777777772877554
        + y * (0.0007936505586430196 + y * (-0.00059518755745034 + y * (0.0008363399189962821
        + y * -0.0016309293409657527)))));
    r = (ax - 0.5) * (t - 1.0) + w;
  } else {
    r = ax * (ppl_log(ax) - 1.0);
  }
  return neg ? nadj - r : r;
}

// ---- shaders/prelude/digamma.glsl
// digamma(x) = psi(x) = d/dx lgamma(x): the Boost scheme ported by stdlib (the CPU reference).
//   x >= 10:      psi(x) = log(x-1) + 1/(2(x-1)) - sum_k B_2k/(2k (x-1)^2k)  (asymptotic series)
//   1 <= x <= 2:  psi(x) = (x - x0) * (Y + P(x-1)/Q(x-1)), x0 = 1.46163... the positive root
//                 (x0 carried in three parts), so psi keeps full relative accuracy at its root;
//   other x > -1: the recurrence psi(x+1) = psi(x) + 1/x down or up into [1, 2];
//   x <= -1:      reflection psi(1-x) - psi(x) = pi cot(pi x) (computed as pi cospi/sinpi).
// Poles (0 and negative integers) give NaN, as the CPU reference. Generic over REAL.

REAL ppl_digamma_rational(REAL t) {
  // P/Q evaluated in t or, for |t| > 1, in 1/t (stdlib's evalrational); here t = x - 1 in [0, 1].
  REAL s1 = 0.25479851061131553 + t * (-0.3255503118680449 + t * (-0.6503185377089651
      + t * (-0.28919126444774784 + t * (-0.04525132144873906 + t * -0.002071332116774595))));
  REAL s2 = 1.0 + t * (2.076711702373047 + t * (1.4606242909763516 + t * (0.43593529692665967
      + t * (0.054151797245674226 + t * (0.0021284987017821146 + t * -5.578984132167551e-7)))));
  return s1 / s2;
}

REAL ppl_digamma(REAL x) {
  if (ppl_isnan(x) || x == 0.0) return PPL_NAN;
  if (ppl_isinf(x)) return x > 0.0 ? x : PPL_NAN;
  REAL tmp = 0.0;
  if (x <= -1.0) {
    x = 1.0 - x;
    REAL rem = x - floor(x);
    if (rem > 0.5) rem -= 1.0;
    if (rem == 0.0) return PPL_NAN;
    tmp = 3.14159265358979311600e+00 * ppl_cospi(rem) / ppl_sinpi(rem);
  }
  if (x >= 10.0) {
    REAL xm = x - 1.0;
    REAL z = 1.0 / (xm * xm);
    REAL p = 0.08333333333333333 + z * (-0.008333333333333333 + z * (0.003968253968253968
        + z * (-0.004166666666666667 + z * (0.007575757575757576 + z * (-0.021092796092796094
        + z * (0.08333333333333333 + z * -0.4432598039215686))))));
    return tmp + (ppl_log(xm) + 1.0 / (2.0 * xm) - z * p);
  }
  while (x > 2.0) {
    x -= 1.0;
    tmp += 1.0 / x;
  }
  while (x < 1.0) {
    tmp -= 1.0 / x;
    x += 1.0;
  }
  // x - x0 with x0 in three parts, subtracted in this order: `precise`, or the compiler folds
  // the three constants into one and the digits below the first part are lost.
  precise REAL g = x - PPL_DIGAMMA_ROOT1;  // the split is per type (real_f32.glsl, real_f64.glsl)
  g -= PPL_DIGAMMA_ROOT2;
  g -= PPL_DIGAMMA_ROOT3;
  REAL rr = ppl_digamma_rational(x - 1.0);
  return tmp + (g * 0.99558162689208984 + g * rr);
}

// ---- shaders/prelude/polygamma.glsl
// polygamma(n, x) = d^n/dx^n digamma(x) for n = 0..3 (n = 0 is ppl_digamma; other n give NaN).
// For x > 0: the recurrence psi_n(x) = psi_n(x+1) + (-1)^(n+1) n!/x^(n+1) shifts x to >= 16
// (a sum of same-signed terms, so no cancellation), then the asymptotic series
//   (-1)^(n+1) psi_n(x) ~ (n-1)!/x^n * (1 + n/(2x) + sum_{k=1..10} c_k(n)/x^(2k)),
//   c_k(n) = B_2k (2k+n-1)! / ((2k)! (n-1)!),
// whose first omitted term is below 1e-19 relative at x = 16. Relative error ~1e-15 (f64).
// For x < 0 (non-integer): reflection, from differentiating psi(1-x) - psi(x) = pi cot(pi x):
//   psi_1(x) = -psi_1(1-x) + pi^2 / sin^2(pi x)
//   psi_2(x) =  psi_2(1-x) - 2 pi^3 cos(pi x) / sin^3(pi x)
//   psi_3(x) = -psi_3(1-x) + 2 pi^4 (2 cos^2(pi x) + 1) / sin^4(pi x)
// with sin(pi x), cos(pi x) from ppl_sinpi/ppl_cospi (exact reduction). At the poles (0 and
// negative integers) the values follow the CPU reference: NaN for n = 1, +inf for n = 2 and 3.
// (For tiny x > 0 the CPU reference returns +inf for n = 2; the true limit, returned here, is -inf.)
// Generic over REAL.

REAL ppl_polygamma_pos(int n, REAL x) {
  REAL acc = 0.0;
  while (x < 16.0) {
    REAL inv = 1.0 / x;
    REAL p = inv * inv;  // 1/x^2
    if (n >= 2) p *= inv;
    if (n >= 3) p *= inv;
    acc += p;
    x += 1.0;
  }
  REAL inv = 1.0 / x;
  REAL z = inv * inv;
  REAL s;
  REAL lead;  // (n-1)!/x^n
  REAL nfact;  // n!
  if (n == 1) {
    s = z * (0.16666666666666666 + z * (-0.033333333333333333 + z * (0.023809523809523808
        + z * (-0.033333333333333333 + z * (0.07575757575757576 + z * (-0.2531135531135531
        + z * (1.1666666666666667 + z * (-7.0921568627450977 + z * (54.971177944862156
        + z * -529.12424242424242)))))))));
    lead = inv;
    nfact = 1.0;
  } else if (n == 2) {
    s = z * (0.5 + z * (-0.16666666666666666 + z * (0.16666666666666666
        + z * (-0.29999999999999999 + z * (0.83333333333333337 + z * (-3.2904761904761903
        + z * (17.5 + z * (-120.56666666666666 + z * (1044.452380952381
        + z * -11111.609090909091)))))))));
    lead = z;
    nfact = 2.0;
  } else {
    s = z * (1.0 + z * (-0.5 + z * (0.66666666666666663 + z * (-1.5 + z * (5.0
        + z * (-23.033333333333335 + z * (140.0 + z * (-1085.0999999999999
        + z * (10444.523809523809 + z * -122227.7)))))))));
    lead = 2.0 * z * inv;
    nfact = 6.0;
  }
  REAL asym = lead * (1.0 + REAL(n) * 0.5 * inv + s);
  REAL v = nfact * acc + asym;
  return (n == 2) ? -v : v;
}

REAL ppl_polygamma(int n, REAL x) {
  if (n == 0) return ppl_digamma(x);
  if (n < 0 || n > 3 || ppl_isnan(x)) return PPL_NAN;
  if (x > 0.0) return ppl_isinf(x) ? (n == 2 ? -0.0 : 0.0) : ppl_polygamma_pos(n, x);
  if (ppl_isinf(x)) return PPL_NAN;
  if (floor(x) == x) return n == 1 ? PPL_NAN : PPL_INF;
  const REAL PI = 3.14159265358979311600e+00;
  REAL sp = ppl_sinpi(x);
  REAL cp = ppl_cospi(x);
  REAL reflected = ppl_polygamma_pos(n, 1.0 - x);
  REAL pis = PI / sp;
  REAL pis2 = pis * pis;
  if (n == 1) return -reflected + pis2;
  if (n == 2) return reflected - 2.0 * pis2 * pis * cp;
  return -reflected + 2.0 * pis2 * pis2 * (2.0 * cp * cp + 1.0);
}

REAL ppl_trigamma(REAL x) { return ppl_polygamma(1, x); }

// ---- shaders/prelude/cdf.glsl
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
#define PPL_LENTZ_TINY 1.0e-30

// Acklam's rational approximation of the normal quantile for 0 < p <= 1/2 (relative error
// 1.2e-9), refined by one Halley step on Phi(x) - p, which gives full precision in f64. The
// step is skipped for subnormal p, where exp(x^2/2) would overflow.
REAL ppl_inv_phi_lower(REAL p) {
  REAL x;
  if (p < 0.02425) {
    REAL q = sqrt(-2.0 * ppl_log(p));
    x = (((((-7.784894002430293e-03 * q + -3.223964580411365e-01) * q + -2.400758277161838e+00) * q
        + -2.549732539343734e+00) * q + 4.374664141464968e+00) * q + 2.938163982698783e+00)
        / ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q + 2.445134137142996e+00) * q
        + 3.754408661907416e+00) * q + 1.0);
  } else {
    REAL q = p - 0.5;
    REAL r = q * q;
    x = (((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r + -2.759285104469687e+02) * r
        + 1.383577518672690e+02) * r + -3.066479806614716e+01) * r + 2.506628277459239e+00) * q
        / (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r + -1.556989798598866e+02) * r
        + 6.680131188771972e+01) * r + -1.328068155288572e+01) * r + 1.0);
  }
  if (p < PPL_MIN_NORMAL) return x;
  REAL e = 0.5 * ppl_erfc(-x * 0.70710678118654752440) - p;
  REAL u = e * 2.50662827463100050242 * ppl_exp(0.5 * x * x);
  return x - u / (1.0 + 0.5 * x * u);
}

REAL ppl_inv_phi(REAL p) {
  if (ppl_isnan(p) || p < 0.0 || p > 1.0) return PPL_NAN;
  if (p == 0.0) return -PPL_INF;
  if (p == 1.0) return PPL_INF;
  // 1 - p is exact for p >= 1/2, so the upper half reuses the lower tail without cancellation.
  return p > 0.5 ? -ppl_inv_phi_lower(1.0 - p) : ppl_inv_phi_lower(p);
}

// log(x^a e^-x / Gamma(a)): the prefactor of the series and of the continued fraction.
REAL ppl_gamma_log_prefactor(REAL a, REAL x) {
  return a * ppl_log(x) - x - ppl_lgamma(a);
}

// P(a, x) = x^a e^-x / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n)), used for x < a + 1, where the
// terms fall at least geometrically after n ~ x - a.
REAL ppl_gamma_p_series(REAL a, REAL x) {
  REAL ap = a;
  REAL term = 1.0 / a;
  REAL sum = term;
  for (int n = 0; n < 10000; n++) {
    ap += 1.0;
    term *= x / ap;
    sum += term;
    if (abs(term) < abs(sum) * PPL_EPS) break;
  }
  return sum * ppl_exp(ppl_gamma_log_prefactor(a, x));
}

// Q(a, x) by Legendre's continued fraction (modified Lentz), used for x >= a + 1.
REAL ppl_gamma_q_fraction(REAL a, REAL x) {
  REAL b = x + 1.0 - a;
  REAL c = 1.0 / PPL_LENTZ_TINY;
  REAL d = 1.0 / b;
  REAL h = d;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    b += 2.0;
    d = an * d + b;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = b + an / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - 1.0) < PPL_EPS) break;
  }
  return ppl_exp(ppl_gamma_log_prefactor(a, x)) * h;
}

REAL ppl_gamma_p(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return 0.0;
  if (ppl_isinf(x)) return 1.0;
  return x < a + 1.0 ? ppl_gamma_p_series(a, x) : 1.0 - ppl_gamma_q_fraction(a, x);
}

REAL ppl_gamma_q(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return 1.0;
  if (ppl_isinf(x)) return 0.0;
  return x < a + 1.0 ? 1.0 - ppl_gamma_p_series(a, x) : ppl_gamma_q_fraction(a, x);
}

// dP(a, x)/da (see packages/tensor/src/cpu/special.ts, gammaPDa): below x = a + 1 the series of P
// differentiated term by term, P (log x - psi(a+1)) - x^a e^-x / Gamma(a+1) sum_n s_n H_n with
// s_n = x^n / ((a+1)...(a+n)) and H_n = sum_{k<=n} 1/(a+k); above, -dQ/da from Q's continued
// fraction differentiated in a alongside its value (forward mode through the Lentz steps).
REAL ppl_gamma_p_da(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0 || ppl_isinf(x)) return 0.0;
  REAL logx = ppl_log(x);
  if (x < a + 1.0) {
    REAL s = 1.0;
    REAL sum = 1.0;
    REAL hn = 0.0;
    REAL sumH = 0.0;
    for (int n = 1; n < 10000; n++) {
      hn += 1.0 / (a + REAL(n));
      s *= x / (a + REAL(n));
      sum += s;
      sumH += s * hn;
      if (s < sum * PPL_EPS && s * hn < sumH * PPL_EPS) break;
    }
    REAL pref = ppl_exp(a * logx - x - ppl_lgamma(a + 1.0));
    return pref * (sum * (logx - ppl_digamma(a + 1.0)) - sumH);
  }
  REAL b = x + 1.0 - a;
  REAL db = -1.0;
  REAL c = 1.0 / PPL_LENTZ_TINY;
  REAL dc = 0.0;
  REAL d = 1.0 / b;
  REAL dd = -db / (b * b);
  REAL h = d;
  REAL dh = dd;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    REAL dan = REAL(i);
    b += 2.0;
    REAL raw = an * d + b;
    REAL draw = dan * d + an * dd + db;
    if (abs(raw) < PPL_LENTZ_TINY) { raw = PPL_LENTZ_TINY; draw = 0.0; }
    REAL nc = b + an / c;
    REAL dnc = db + (dan - an * dc / c) / c;  // d(an/c)/da, without squaring c (which starts at 1/tiny)
    if (abs(nc) < PPL_LENTZ_TINY) { nc = PPL_LENTZ_TINY; dnc = 0.0; }
    c = nc;
    dc = dnc;
    d = 1.0 / raw;
    dd = -draw / (raw * raw);
    REAL del = d * c;
    REAL ddel = dd * c + d * dc;
    REAL ndh = dh * del + h * ddel;
    bool done = abs(del - 1.0) < PPL_EPS && abs(ndh - dh) <= PPL_EPS * abs(ndh);
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
  REAL qap = a + 1.0;
  REAL qam = a - 1.0;
  REAL c = 1.0;
  REAL d = 1.0 - qab * x / qap;
  if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
  d = 1.0 / d;
  REAL h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = 2.0 * rm;
    REAL aa = rm * (b - rm) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = 1.0 + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + rm) * (qab + rm) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = 1.0 + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - 1.0) < PPL_EPS) break;
  }
  return h;
}

REAL ppl_betainc(REAL a, REAL b, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > 0.0) || !(b > 0.0) || x < 0.0 || x > 1.0) {
    return PPL_NAN;
  }
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  // log(x^a (1-x)^b / B(a, b))
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return ppl_exp(lf) * ppl_beta_fraction(a, b, x) / a;
  return 1.0 - ppl_exp(lf) * ppl_beta_fraction(b, a, 1.0 - x) / b;
}

// Dual numbers (value, d/da, d/db) for differentiating the beta continued fraction in its shapes.
REAL3 ppl_dual_mul(REAL3 u, REAL3 v) { return REAL3(u.x * v.x, u.x * v.y + u.y * v.x, u.x * v.z + u.z * v.x); }
REAL3 ppl_dual_div(REAL3 u, REAL3 v) {
  REAL q = u.x / v.x;
  return REAL3(q, (u.y - q * v.y) / v.x, (u.z - q * v.z) / v.x);
}
REAL3 ppl_dual_guard(REAL3 u) { return abs(u.x) < PPL_LENTZ_TINY ? REAL3(PPL_LENTZ_TINY, 0.0, 0.0) : u; }

// ppl_beta_fraction on dual numbers of its shapes a and b (forward mode through the Lentz steps),
// run until the value and both derivatives have settled.
REAL3 ppl_beta_fraction_dual(REAL a, REAL b, REAL x) {
  REAL3 A = REAL3(a, 1.0, 0.0);
  REAL3 B = REAL3(b, 0.0, 1.0);
  REAL3 one = REAL3(1.0, 0.0, 0.0);
  REAL3 qab = REAL3(a + b, 1.0, 1.0);
  REAL3 qap = A + one;
  REAL3 qam = A - one;
  REAL3 c = one;
  REAL3 d = ppl_dual_div(one, ppl_dual_guard(one - ppl_dual_div(qab * x, qap)));
  REAL3 h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = 2.0 * rm;
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
    if (abs(del.x - 1.0) < PPL_EPS && settled) break;
  }
  return h;
}

// dI_x(a, b)/da (wrt = 0) or /db (wrt = 1): the prefactor x^a (1-x)^b / B(a, b) through digamma and
// the continued fraction through its dual, on the side where it converges (as ppl_betainc).
REAL ppl_betainc_grad(REAL a, REAL b, REAL x, int wrt) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > 0.0) || !(b > 0.0) || x < 0.0 || x > 1.0) {
    return PPL_NAN;
  }
  if (x == 0.0 || x == 1.0) return 0.0;
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  REAL psab = ppl_digamma(a + b);
  REAL lfa = psab - ppl_digamma(a) + ppl_log(x);
  REAL lfb = psab - ppl_digamma(b) + ppl_log1p(-x);
  REAL f = ppl_exp(lf);
  if (x < (a + 1.0) / (a + b + 2.0)) {
    REAL3 h = ppl_beta_fraction_dual(a, b, x);
    return wrt == 0 ? f * (lfa * h.x / a + h.y / a - h.x / (a * a)) : f * (lfb * h.x / a + h.z / a);
  }
  // cf(b, a, 1 - x): its first shape is b (the .y part), its second a (.z).
  REAL3 h = ppl_beta_fraction_dual(b, a, 1.0 - x);
  return wrt == 0 ? -f * (lfa * h.x / b + h.z / b) : -f * (lfb * h.x / b + h.y / b - h.x / (b * b));
}

// (1/2pi) int_0^a exp(-h^2 (1+t^2)/2) / (1+t^2) dt for h >= 0, 0 <= a <= 1, by 32-point
// Gauss-Legendre over the part of [0, a] where the integrand is above exp(-50) of its value at 0.
REAL ppl_owens_t_quadrature(REAL h, REAL a) {
  const REAL nodes[16] = REAL[16](0.048307665687738324, 0.1444719615827965, 0.23928736225213706, 0.33186860228212767, 0.42135127613063533, 0.5068999089322294, 0.5877157572407623, 0.6630442669302152, 0.7321821187402897, 0.7944837959679424, 0.84936761373257, 0.8963211557660521, 0.9349060759377397, 0.9647622555875064, 0.9856115115452684, 0.9972638618494816);
  const REAL weights[16] = REAL[16](0.09654008851472766, 0.09563872007927471, 0.09384439908080451, 0.09117387869576378, 0.08765209300440378, 0.08331192422694671, 0.07819389578707023, 0.07234579410884834, 0.06582222277636168, 0.058684093478535565, 0.05099805926237609, 0.042835898022226836, 0.034273862913021765, 0.025392065309262024, 0.016274394730905743, 0.007018610009470506);
  REAL u = h * a > 10.0 ? 10.0 / h : a;
  REAL hw = 0.5 * u;
  REAL s = 0.0;
  for (int k = 0; k < 16; k++) {
    REAL t1 = hw * (1.0 - nodes[k]);
    REAL t2 = hw * (1.0 + nodes[k]);
    REAL q1 = 1.0 + t1 * t1;
    REAL q2 = 1.0 + t2 * t2;
    s += weights[k] * (ppl_exp(-0.5 * h * h * q1) / q1 + ppl_exp(-0.5 * h * h * q2) / q2);
  }
  return s * hw * 0.15915494309189533577;  // 1 / (2 pi)
}

// T is even in h and odd in a; for |a| > 1, T(h, a) = Q(h)/2 + Q(ah)/2 - Q(h) Q(ah) - T(ah, 1/a)
// with upper normal tails Q (which do not cancel for large h) maps the integral onto [0, 1].
REAL ppl_owens_t(REAL h, REAL a) {
  if (ppl_isnan(h) || ppl_isnan(a)) return PPL_NAN;
  REAL sg = a < 0.0 ? -1.0 : 1.0;
  REAL aa = abs(a);
  REAL ah = abs(h);
  if (aa == 0.0 || ppl_isinf(ah)) return 0.0;
  if (aa <= 1.0) return sg * ppl_owens_t_quadrature(ah, aa);
  if (ah == 0.0) return sg * ppl_atan(aa) * 0.15915494309189533577;
  REAL qh = 0.5 * ppl_erfc(ah * 0.70710678118654752440);
  REAL qah = 0.5 * ppl_erfc(aa * ah * 0.70710678118654752440);
  REAL rest = ppl_isinf(aa) ? 0.0 : ppl_owens_t_quadrature(aa * ah, 1.0 / aa);
  return sg * (0.5 * qh + 0.5 * qah - qh * qah - rest);
}

#undef PPL_LENTZ_TINY

// ---- shaders/prelude/normal.glsl
// Uniform and standard normal variates from one Philox block (x0, x1, x2, x3), as
// packages/ppl/src/random/streams.ts: u0 = uniform(x0, x1), u1 = uniform(x2, x3) and the
// Box-Muller pair n0 = r cos(2 pi u1), n1 = r sin(2 pi u1), r = sqrt(-2 log u0).
// f64: uniforms are bit-exact; normals use the fdlibm log/cos/sin ports (the algorithms JS
// Math uses), so they match the CPU to the last bit wherever the device rounds IEEE-exactly.
// f32: uniforms are the f64 ones correctly rounded to float (see ppl_uniform_f32); normals are
// computed in float, within a few float ulp of the f64 ones. Generic over REAL.

REAL PPL_SFX(ppl_uniform0)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.x, w.y); }
REAL PPL_SFX(ppl_uniform1)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.z, w.w); }

REAL PPL_SFX(ppl_box_muller_radius)(uvec4 w) {
  return sqrt(-2.0 * ppl_log(PPL_SFX(ppl_uniform)(w.x, w.y)));
}
REAL PPL_SFX(ppl_normal0)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_cos(6.283185307179586 * PPL_SFX(ppl_uniform)(w.z, w.w));
}
REAL PPL_SFX(ppl_normal1)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_sin(6.283185307179586 * PPL_SFX(ppl_uniform)(w.z, w.w));
}

// ---- shaders/prelude/real_end.glsl
// Ends one instantiation of the generic prelude files (see real_f64.glsl).
#undef REAL
#undef PPL_SFX
#undef PPL_NAN
#undef PPL_INF
#undef PPL_LN2_HI
#undef PPL_LN2_LO
#undef PPL_EXP_OVERFLOW
#undef PPL_EXP_UNDERFLOW
#undef PPL_EXP_TINY
#undef PPL_EXPM1_SATURATE
#undef PPL_EXPM1_TINY
#undef PPL_EXPM1_KSPLIT
#undef PPL_TANH_SATURATE
#undef PPL_TANH_TINY
#undef PPL_ERF_SMALL
#undef PPL_ALL_INTEGERS
#undef PPL_SPLITTER
#undef PPL_EPS
#undef PPL_MIN_NORMAL
#undef REAL3
#undef PPL_DIGAMMA_ROOT1
#undef PPL_DIGAMMA_ROOT2
#undef PPL_DIGAMMA_ROOT3

// part 0: reduce_sum [1024] (node 49a3567490b222fbc75b8aaa)
void ppl_part0(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float acc0 = 0.00000000;
  for (int k1 = 0; k1 < 3; k1++) {
    float t2 = b0.v[((u)*4+(1+k1))];
    float t3 = t2;
    float t4 = (t3/2.50000000);
    float t5 = (t4*t4);
    float t6 = (0.500000000*t5);
    float t7 = (t6+0.916290760);
    float t8 = (-t7);
    float t9 = (t8-0.918938518);
    acc0 = acc0 + t9;
  }
  b1.v[u] = acc0;
}
// part 1: matmul [200,1024] (node c29d74273963bf6d5cd553a8): tiled matmul 32x32x4, 1 k-slices
void ppl_part1(int gid, uint ppl_lid) {
  if (gid >= 224) return;
  int tileId = gid / 1; int p = gid - tileId * 1;
  int tc = tileId % 32; int tr = (tileId / 32) % 7; int bt = tileId / 224;
  int i0 = tr * 32; int j0 = tc * 32;
  int kBegin = p * 4; int kEnd = min(3, kBegin + 4);
  int t = int(ppl_lid);
  int col = t % 32; int row0 = t / 32;
  float acc[4];
  for (int j = 0; j < 4; j++) acc[j] = 0.00000000;
  for (int k0 = kBegin; k0 < kEnd; k0 += 4) {
    for (int q = 0; q < 1; q++) {
      int e = int(ppl_lid) + 256 * q;
      int r = e / 4; int c = e % 4;
      float val = 0.00000000;
      if (e < 128 && i0 + r < 200 && k0 + c < kEnd) {
        float t0 = b2.v[(((i0 + r))*3+(k0 + c))];
        val = t0;
      }
      if (e < 128) ppl_As[r * 5 + c] = val;
    }
    for (int q = 0; q < 1; q++) {
      int e = int(ppl_lid) + 256 * q;
      int r = e % 4; int c = e / 4;
      float val = 0.00000000;
      if (e < 128 && k0 + r < kEnd && j0 + c < 1024) {
        float t1 = b0.v[(((j0 + c))*4+(1+(k0 + r)))];
        float t2 = t1;
        float t3 = t2;
        val = t3;
      }
      if (e < 128) ppl_Bs[r * 33 + c] = val;
    }
    memoryBarrierShared(); barrier();
    for (int kk = 0; kk < 4; kk++) {
      float b = ppl_Bs[kk * 33 + col];
      for (int j = 0; j < 4; j++) acc[j] += ppl_As[(row0 + j * 8) * 5 + kk] * b;
    }
    memoryBarrierShared(); barrier();
  }
  for (int j = 0; j < 4; j++) {
    int i = i0 + row0 + j * 8; int jj = j0 + col;
    if (i < 200 && jj < 1024) { b3.v[(bt * 204800 + i * 1024 + jj)] = acc[j]; }
  }
}
void main() {
  int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (g < 4) { ppl_part0(g * 4 + int(gl_LocalInvocationIndex / 64u), gl_LocalInvocationIndex % 64u); return; }
  g -= 4;
  if (g < 224) { ppl_part1(g, gl_LocalInvocationIndex); return; }
}

// ----
#version 450
// 2 independent kernels in one dispatch, each on its own workgroups:
//   part 0: reduce_sum [1024] (node 278afb076c2a4bf460e79778)
//   part 1: mul [1024,200] (node 5485f75a3d9af9be494129f3)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
layout(std430, set = 0, binding = 4) writeonly restrict buffer Buf4 { float v[]; } b4;
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// ---- shaders/prelude/philox.glsl
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC'11), bit-exact with Random123 and with packages/ppl/src/random/philox.ts.
// Type-free (32-bit unsigned integers only); included once, before both REAL instantiations.

// Encrypts counter (c.x, c.y, c.z, c.w) under key (k.x, k.y): ten rounds, the key bumped by the
// Weyl constants between rounds (not before the first).
uvec4 ppl_philox4x32(uvec4 c, uvec2 k) {
  for (int round = 0; round < 10; round++) {
    if (round > 0) k += uvec2(0x9E3779B9u, 0xBB67AE85u);
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
  }
  return c;
}

// The keyed stream of packages/ppl/src/random/streams.ts:
//   key = (seed mod 2^32, seed / 2^32), counter = (chain, iteration, purpose | sub << 8, block).
uvec4 ppl_philox_stream(uvec2 seedKey, uint chain, uint iteration, uint purpose, uint sub, uint block) {
  return ppl_philox4x32(uvec4(chain, iteration, purpose | (sub << 8), block), seedKey);
}

// ---- shaders/prelude/real_f32.glsl
// Type header for the f32 instantiation of the prelude (see real_f64.glsl for the scheme).
// Same algorithms as f64, with single-precision thresholds and splits (fdlibm's *f variants).

#define REAL float
#define PPL_SFX(name) name##_f32

#define PPL_LN2_HI 6.9313812256e-01      // 0x3f317180: k*LN2_HI exact for |k| <= 128
#define PPL_LN2_LO 9.0580006145e-06      // 0x3717f7d1
#define PPL_EXP_OVERFLOW 8.8722839355e+01 // 0x42b17218, ~ln(FLT_MAX)
#define PPL_EXP_UNDERFLOW -1.0397208405e+02 // 0xc2cff1b5
#define PPL_EXP_TINY 6.103515625e-05      // 2^-14
#define PPL_EXPM1_SATURATE 1.8714973450e+01 // 27*ln2
#define PPL_EXPM1_TINY 2.98023223876953125e-08 // 2^-25
#define PPL_EXPM1_KSPLIT 23
#define PPL_TANH_SATURATE 9.0
#define PPL_TANH_TINY 2.44140625e-04      // 2^-12
#define PPL_ERF_SMALL 6.103515625e-05     // 2^-14
#define PPL_ALL_INTEGERS 8388608.0        // 2^23
#define PPL_SPLITTER 4097.0               // 2^12 + 1
#define PPL_EPS 5.9604644775390625e-08    // 2^-24, half an ulp of 1: the series' and fractions' stopping test
#define PPL_MIN_NORMAL 1.1754943508e-38   // 2^-126
#define REAL3 vec3                        // a dual number (value and two partial derivatives)
// The positive root of digamma, x0 = 1.46163214496836234126..., as a sum of three floats.
#define PPL_DIGAMMA_ROOT1 1.461632133e+00
#define PPL_DIGAMMA_ROOT2 1.243815007e-08
#define PPL_DIGAMMA_ROOT3 -1.265446444e-16

float ppl_nan_f32() { return uintBitsToFloat(0x7fc00000u); }
float ppl_inf_f32() { return uintBitsToFloat(0x7f800000u); }
#define PPL_NAN ppl_nan_f32()
#define PPL_INF ppl_inf_f32()

bool ppl_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool ppl_isinf(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u; }

// Sign bit, which also tells -0 from +0.
bool ppl_signbit(float x) { return (floatBitsToUint(x) >> 31) != 0u; }

// 2^e for e in [-126, 127].
float ppl_exp2i_f32(int e) { return uintBitsToFloat(uint(e + 127) << 23); }

// y * 2^k for k in [-252, 254] with two exact power-of-two factors (see the f64 version).
float ppl_scale(float y, int k) {
  int k1 = k / 2;
  precise float t = y * ppl_exp2i_f32(k1);
  precise float r = t * ppl_exp2i_f32(k - k1);
  return r;
}

// For finite x > 0: xm in [1, 2), x = xm * 2^k, and the top 20 significand bits (as for f64,
// so that fdlibm's thresholds on the high word apply unchanged).
float ppl_normalize(float x, out int k, out int hx) {
  int k0 = 0;
  uint b = floatBitsToUint(x);
  if (b < 0x00800000u) {  // subnormal (where the device keeps them): scale by 2^25 first
    b = floatBitsToUint(x * 33554432.0);
    k0 = -25;
  }
  k = k0 + int(b >> 23) - 127;
  hx = int((b & 0x007fffffu) >> 3);
  return uintBitsToFloat((b & 0x007fffffu) | 0x3f800000u);
}

// x with the low 13 significand bits cleared (fdlibm's erff and cosf use 0xffffe000): its square
// is exact and, for the arguments of erfc, so is -x^2 - 0.5625.
float ppl_clear_low(float x) { return uintBitsToFloat(floatBitsToUint(x) & 0xffffe000u); }

int ppl_biased_exponent(float x) { return int((floatBitsToUint(x) >> 23) & 0xffu); }

// x = n*pi/2 + y0 (y1 = 0): Cody-Waite with pi/2 split into three 8-bit parts and a float tail,
// so n*part is exact for |n| < 2^16; accurate to ~1 ulp of the result for |x| < 1e5, except
// within ~1e-10 of a multiple of pi/2, where the error stays ~1e-10 absolute.
int ppl_rem_pio2(float x, out float y0, out float y1) {
  y1 = 0.0;
  if (abs(x) <= 7.8539818525e-01) { y0 = x; return 0; }
  float fn = floor(x * 6.366197467e-01 + 0.5);
  precise float r = x - fn * 1.570312500e+00;
  r = r - fn * 4.825592041e-04;
  r = r - fn * 1.266598701e-06;
  r = r - fn * 9.920936295e-10;
  y0 = r;
  return int(fn);
}

// Uniform float in (0, 1) from two Philox words: the f64 uniform of ppl_uniform_f64 (and of
// packages/ppl/src/random/variates.ts) correctly rounded to float, computed with integer
// arithmetic so no double support is needed. The only exception: values that would round to
// 1.0 (probability 2^-25) return the largest float below 1, so that u < 1 always holds.
float ppl_uniform_f32(uint hi, uint lo) {
  // M = 2*(hi >> 12)*2^32 + 2*lo + 1 (53 bits) and u = M * 2^-53; split M as mh*2^32 + ml.
  uint mh = ((hi >> 12) << 1) | (lo >> 31);
  uint ml = (lo << 1) | 1u;
  int msb = mh != 0u ? 32 + findMSB(mh) : findMSB(ml);
  int shift = msb - 23;  // bits to drop to keep a 24-bit significand
  if (shift <= 0) return float(ml) * 1.1102230246251565e-16;  // M < 2^24: exact (ml < 2^24)
  // q = M >> shift, rem = M mod 2^shift, compared with half = 2^(shift-1).
  uint q;
  uint remHi;  // rem >> 32 (only when shift > 32)
  uint remLo;
  if (shift >= 32) {
    q = mh >> (shift - 32);
    remHi = shift == 32 ? 0u : mh & ((1u << (shift - 32)) - 1u);
    remLo = ml;
  } else {
    q = (mh << (32 - shift)) | (ml >> shift);
    remHi = 0u;
    remLo = ml & ((1u << shift) - 1u);
  }
  uint halfHi = shift > 32 ? 1u << (shift - 33) : 0u;
  uint halfLo = shift > 32 ? 0u : 1u << (shift - 1);
  bool above = remHi > halfHi || (remHi == halfHi && remLo > halfLo);
  bool tie = remHi == halfHi && remLo == halfLo;
  if (above || (tie && (q & 1u) == 1u)) q += 1u;
  float u = float(q) * ppl_exp2i_f32(shift - 53);
  return min(u, 0.99999994);
}

// ---- shaders/prelude/double_word.glsl
// Error-free transformations (Dekker 1971, Knuth TAOCP 4.2.2) for double-word arithmetic, used by
// pow and mod. Generic over REAL. Every temporary is `precise`: the compiler must neither fuse
// a*b+c into an fma nor reassociate, or the error terms come out as zero.

// a = hi + lo exactly, each half with at most half the significand bits (Veltkamp splitting).
void ppl_split(REAL a, out REAL hi, out REAL lo) {
  precise REAL c = PPL_SPLITTER * a;
  precise REAL h = c - (c - a);
  precise REAL l = a - h;
  hi = h;
  lo = l;
}

// a * b = p + e exactly (Dekker's product); needs |a|, |b| far from overflow.
void ppl_two_prod(REAL a, REAL b, out REAL p, out REAL e) {
  REAL ah, al, bh, bl;
  ppl_split(a, ah, al);
  ppl_split(b, bh, bl);
  precise REAL pp = a * b;
  precise REAL ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
  p = pp;
  e = ee;
}

// a + b = s + e exactly (Knuth's two-sum, no ordering requirement).
void ppl_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL bb = ss - a;
  precise REAL ee = (a - (ss - bb)) + (b - bb);
  s = ss;
  e = ee;
}

// a + b = s + e exactly when |a| >= |b| or a == 0 (Dekker's fast two-sum).
void ppl_fast_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL ee = b - (ss - a);
  s = ss;
  e = ee;
}

// ---- shaders/prelude/basic.glsl
// Elementwise basics with the CPU backend's semantics (packages/tensor/src/cpu/scalar.ts).
// Generic over REAL (see real_f64.glsl).

REAL ppl_abs(REAL x) { return abs(x); }
REAL ppl_neg(REAL x) { return -x; }
REAL ppl_floor(REAL x) { return floor(x); }
REAL ppl_ceil(REAL x) { return ceil(x); }
REAL ppl_square(REAL x) { return x * x; }
REAL ppl_reciprocal(REAL x) { return 1.0 / x; }

// sign: +1, -1, and x itself for +-0 and NaN (like the CPU, unlike GLSL's sign on NaN).
REAL ppl_sign(REAL x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x); }

// sqrt is correctly rounded for both types in Vulkan (SPIR-V Sqrt on double is exact on
// lavapipe and NVIDIA); rsqrt is 1/sqrt rather than inversesqrt, whose f64 precision is unspecified.
REAL ppl_sqrt(REAL x) { return sqrt(x); }
REAL ppl_rsqrt(REAL x) { return 1.0 / sqrt(x); }

// max/min with the CPU's NaN rule: NaN in either argument gives NaN.
REAL ppl_max(REAL a, REAL b) { return (a >= b || ppl_isnan(a)) ? a : b; }
REAL ppl_min(REAL a, REAL b) { return (a <= b || ppl_isnan(a)) ? a : b; }

// Python-style remainder (sign of the divisor), as the CPU's mod: r = a - trunc(a/b)*b with the
// product formed exactly (Dekker), then one correction step for a rounded-up quotient and the
// shift by b when the signs of r and b differ. Exact while |a/b| < 2^52 (2^23 for f32); for larger
// quotients (huge a, tiny b) the result is inaccurate or NaN: no bitwise long division is done.
REAL ppl_mod(REAL a, REAL b) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isinf(a) || b == 0.0) return PPL_NAN;
  if (ppl_isinf(b)) return (a != 0.0 && (a < 0.0) != (b < 0.0)) ? b : a;
  precise REAL q = trunc(a / b);
  REAL p, e;
  ppl_two_prod(q, b, p, e);
  precise REAL r = (a - p) - e;
  // a/b rounded away from zero past an integer: r has the wrong sign; step q back by one.
  if (r != 0.0 && (r < 0.0) != (a < 0.0)) r = ((a < 0.0) == (b < 0.0)) ? r + b : r - b;
  if (r != 0.0 && (r < 0.0) != (b < 0.0)) r += b;
  return r;
}

REAL ppl_nan(REAL like) { return PPL_NAN; }
REAL ppl_inf(REAL like) { return PPL_INF; }

// ---- shaders/prelude/exp.glsl
// exp(x): fdlibm e_exp.c (as in V8, so f64 results match JS Math.exp), error < 1 ulp.
// Method: x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 = LN2_HI + LN2_LO, k*LN2_HI exact);
// exp(r) = 1 + 2r/(2 - R(r)) with R a degree-10 minimax polynomial in r (5 terms in r^2);
// then scale by 2^k. Generic over REAL; temporaries are `precise` because the formulas rely on
// the exact order of IEEE operations.

// 1 - ((lo - r*c/(2-c)) - hi) scaled by 2^k, for r = hi - lo.
REAL ppl_exp_kernel(REAL hi, REAL lo, int k) {
  precise REAL r = hi - lo;
  precise REAL t = r * r;
  precise REAL c = r - t * (1.66666666666666019037e-01 + t * (-2.77777777770155933842e-03
      + t * (6.61375632143793436117e-05 + t * (-1.65339022054652515390e-06
      + t * 4.13813679705723846039e-08))));
  precise REAL y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  return ppl_scale(y, k);
}

// exp(xh + xl) for a double-word argument (|xl| <= ulp(xh)): the tail joins the reduced argument.
REAL ppl_exp_dw(REAL xh, REAL xl) {
  if (ppl_isnan(xh)) return xh;
  if (xh > PPL_EXP_OVERFLOW) return PPL_INF;
  if (xh < PPL_EXP_UNDERFLOW) return 0.0;
  int k = int(1.44269504088896338700e+00 * xh + (xh < 0.0 ? -0.5 : 0.5));
  REAL fk = REAL(k);
  precise REAL hi = xh - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO - xl;
  return ppl_exp_kernel(hi, lo, k);
}

REAL ppl_exp(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  if (x < PPL_EXP_UNDERFLOW) return 0.0;
  REAL ax = abs(x);
  if (ax < PPL_EXP_TINY) return 1.0 + x;
  // |x| <= ln2/2 takes k = 0, so hi = x and lo = 0 and the kernel computes fdlibm's k = 0 formula
  // 1 - ((x*c)/(c - 2) - x) to the bit (0 - q = -q, and (x*c)/(2 - c) is that quotient negated).
  // A select instead of a separate path: a subgroup whose lanes straddle ln2/2 runs one path, not both.
  int k = ax <= 3.46573590279972654709e-01 ? 0 : int(1.44269504088896338700e+00 * x + (x < 0.0 ? -0.5 : 0.5));
  REAL fk = REAL(k);
  precise REAL hi = x - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO;
  return ppl_exp_kernel(hi, lo, k);
}

// ---- shaders/prelude/log.glsl
// log(x) and log1p(x): fdlibm e_log.c and s_log1p.c (as in V8, so f64 log matches JS Math.log),
// error < 1 ulp. Method: x = 2^k * (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2));
// log(1 + f) = f - f^2/2 + s*(f^2/2 + R(z)) with s = f/(2 + f), z = s^2 and R a degree-14
// minimax polynomial (the atanh series 2s + 2s^3/3 + ... rearranged); k*ln2 added in two parts.
// log1p additionally carries the rounding error of 1 + x as a correction c/u.
// Generic over REAL; temporaries are `precise` (exact operation order matters).

REAL ppl_log(REAL x) {
  if (ppl_isnan(x) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  int k;
  int hx;
  REAL m = ppl_normalize(x, k, hx);  // x = m * 2^k, m in [1, 2); hx = top 20 bits of m - 1
  // fdlibm: (hx + 0x95f64) & 0x100000 is set when m >= ~sqrt(2); then use m/2 and k + 1.
  int i = (hx + 0x95f64) & 0x100000;
  if (i != 0) {
    m *= 0.5;
    k += 1;
  }
  precise REAL f = m - 1.0;
  REAL dk = REAL(k);
  if ((0x000fffff & (2 + hx)) < 3) {  // -2^-20 <= f < 2^-20
    if (f == 0.0) {
      if (k == 0) return 0.0;
      precise REAL res0 = dk * PPL_LN2_HI + dk * PPL_LN2_LO;
      return res0;
    }
    precise REAL r0 = f * f * (0.5 - 0.33333333333333333 * f);
    precise REAL res1 = (k == 0) ? f - r0 : dk * PPL_LN2_HI - ((r0 - dk * PPL_LN2_LO) - f);
    return res1;
  }
  precise REAL s = f / (2.0 + f);
  precise REAL z = s * s;
  int i2 = hx - 0x6147a;
  precise REAL w = z * z;
  int j = 0x6b851 - hx;
  precise REAL t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01
      + w * 1.531383769920937332e-01));
  precise REAL t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01
      + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  i2 |= j;
  precise REAL r = t2 + t1;
  precise REAL res;
  if (i2 > 0) {
    precise REAL hfsq = 0.5 * f * f;
    if (k == 0) res = f - (hfsq - s * (hfsq + r));
    else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + dk * PPL_LN2_LO)) - f);
  } else {
    if (k == 0) res = f - s * (f - r);
    else res = dk * PPL_LN2_HI - ((s * (f - r) - dk * PPL_LN2_LO) - f);
  }
  return res;
}

REAL ppl_log1p(REAL x) {
  if (ppl_isnan(x) || x < -1.0) return PPL_NAN;
  if (x == -1.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  REAL ax = abs(x);
  if (ax < 1.862645149230957e-09) {  // |x| < 2^-29: x - x^2/2 is exact to rounding
    precise REAL t = x - x * x * 0.5;
    return (ax < 5.551115123125783e-17) ? x : t;
  }
  int k = 1;
  precise REAL f;
  precise REAL c = 0.0;
  int hu = 1;
  if (x < 4.142135623730950488017e-01 && x > -2.928932188134524755992e-01) {
    // 1 + x in (sqrt(2)/2, sqrt(2)): no reduction, f = x exactly.
    k = 0;
    f = x;
  } else {
    precise REAL u = 1.0 + x;
    if (x < PPL_ALL_INTEGERS) {
      // c = (1 + x) - u, the rounding error of u, relative to u.
      c = (u >= 2.0) ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    }
    int hx;
    REAL m = ppl_normalize(u, k, hx);
    // As in log: switch to [sqrt(2)/2, 1) when m >= ~sqrt(2) (fdlibm's 0x6a09e threshold).
    hu = hx;
    if (hx >= 0x6a09e) {
      m *= 0.5;
      k += 1;
      hu = (0x100000 - hx) >> 2;  // zero when m is within 2^-20 of 2, i.e. |f| < 2^-20
    }
    f = m - 1.0;
  }
  REAL dk = REAL(k);
  precise REAL hfsq = 0.5 * f * f;
  if (hu == 0) {  // |f| < 2^-20 (only reachable with k != 0)
    if (f == 0.0) {
      precise REAL res0 = dk * PPL_LN2_HI + (c + dk * PPL_LN2_LO);
      return res0;
    }
    precise REAL r0 = hfsq * (1.0 - 0.66666666666666666 * f);
    precise REAL res1 = dk * PPL_LN2_HI - ((r0 - (dk * PPL_LN2_LO + c)) - f);
    return res1;
  }
  precise REAL s = f / (2.0 + f);
  precise REAL z = s * s;
  precise REAL r = z * (6.666666666666735130e-01 + z * (3.999999999940941908e-01
      + z * (2.857142874366239149e-01 + z * (2.222219843214978396e-01
      + z * (1.818357216161805012e-01 + z * (1.531383769920937332e-01
      + z * 1.479819860511658591e-01))))));
  precise REAL res;
  if (k == 0) res = f - (hfsq - s * (hfsq + r));
  else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * PPL_LN2_LO + c))) - f);
  return res;
}

// ---- shaders/prelude/expm1.glsl
// expm1(x) = exp(x) - 1 without cancellation near 0: fdlibm s_expm1.c, error < 1 ulp.
// Method: x = k*ln2 + r (Cody-Waite, with the rounding error of r kept in c); on |r| <= ln2/2
// expm1(r) = r + r^2/2 + r^3/2 * (3 - (R1 + R1*r/2))/(6 - r*(3 - R1*r/2)) with a rational
// approximation R1 in r^2 (5 terms); then 2^k*(expm1(r) - c + 1) - 1, rearranged per range of k
// to stay exact. Generic over REAL.

REAL ppl_expm1(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x == 0.0) return x;  // keeps -0
  REAL ax = abs(x);
  if (ax >= PPL_EXPM1_SATURATE) {
    if (x < 0.0) return -1.0;
    if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  }
  int k = 0;
  precise REAL c = 0.0;
  precise REAL xr = x;
  if (ax > 3.46573590279972654709e-01) {  // |x| > ln2/2: reduce
    precise REAL hi;
    precise REAL lo;
    if (ax < 1.03972077083991796413e+00) {  // |x| < 1.5*ln2: k = +-1
      if (x > 0.0) { hi = x - PPL_LN2_HI; lo = PPL_LN2_LO; k = 1; }
      else { hi = x + PPL_LN2_HI; lo = -PPL_LN2_LO; k = -1; }
    } else {
      k = int(1.44269504088896338700e+00 * x + (x < 0.0 ? -0.5 : 0.5));
      REAL t = REAL(k);
      hi = x - t * PPL_LN2_HI;  // exact
      lo = t * PPL_LN2_LO;
    }
    xr = hi - lo;
    c = (hi - xr) - lo;
  } else if (ax < PPL_EXPM1_TINY) {
    return x;
  }
  precise REAL hfx = 0.5 * xr;
  precise REAL hxs = xr * hfx;
  precise REAL r1 = 1.0 + hxs * (-3.33333333333331316428e-02 + hxs * (1.58730158725481460165e-03
      + hxs * (-7.93650757867487942473e-05 + hxs * (4.00821782732936239552e-06
      + hxs * -2.01099218183624371326e-07))));
  precise REAL t = 3.0 - r1 * hfx;
  precise REAL e = hxs * ((r1 - t) / (6.0 - xr * t));
  if (k == 0) {
    precise REAL y0 = xr - (xr * e - hxs);  // c is 0
    return y0;
  }
  e = (xr * (e - c) - c);
  e -= hxs;
  if (k == -1) {
    precise REAL ym = 0.5 * (xr - e) - 0.5;
    return ym;
  }
  if (k == 1) {
    precise REAL yp = (xr < -0.25) ? -2.0 * (e - (xr + 0.5)) : 1.0 + 2.0 * (xr - e);
    return yp;
  }
  if (k <= -2 || k > 56) {  // exp(x) - 1 directly: the -1 is negligible or the result is ~-1
    precise REAL y = 1.0 - (e - xr);
    y = ppl_scale(y, k);
    precise REAL y1 = y - 1.0;
    return y1;
  }
  precise REAL y;
  if (k < PPL_EXPM1_KSPLIT) {
    precise REAL u = 1.0 - ppl_scale(1.0, -k);  // 1 - 2^-k, exact
    y = u - (e - xr);
  } else {
    precise REAL u = ppl_scale(1.0, -k);  // 2^-k
    y = xr - (e + u);
    y += 1.0;
  }
  precise REAL y2 = ppl_scale(y, k);
  return y2;
}

// ---- shaders/prelude/trig.glsl
// sin, cos, and sin(pi x), cos(pi x): fdlibm s_sin.c / s_cos.c with the kernels k_sin.c, k_cos.c
// (as in V8, so f64 results match JS Math.sin/Math.cos where the reduction is exact), error < 1 ulp.
// Range reduction is ppl_rem_pio2 (per type, in real_f32.glsl / real_f64.glsl): Cody-Waite
// with a 3-part pi/2 for f64, exact for |x| < ~8e5; the f32 one is accurate for |x| < 1e5.
// The kernels take the reduced argument as a double-word y0 + y1. Generic over REAL.

// sin(x + y) on |x| <= pi/4, y the tail of x; iy = 0 means y is known to be 0.
REAL ppl_kernel_sin(REAL x, REAL y, int iy) {
  if (abs(x) < 7.450580596923828125e-09) return x;  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL v = z * x;
  precise REAL r = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04
      + z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08
      + z * 1.58969099521155010221e-10)));
  precise REAL res;
  if (iy == 0) res = x + v * (-1.66666666666666324348e-01 + z * r);
  else res = x - ((z * (0.5 * y - v * r) - y) - v * -1.66666666666666324348e-01);
  return res;
}

// cos(x + y) on |x| <= pi/4. For |x| >= 0.3, 1 - qx and x^2/2 - qx are exact (qx ~ x/4 with its
// low bits cleared), which keeps the subtraction accurate.
REAL ppl_kernel_cos(REAL x, REAL y) {
  REAL ax = abs(x);
  if (ax < 7.450580596923828125e-09) return 1.0;  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL r = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03
      + z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07
      + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
  precise REAL res;
  if (ax < 0.3) {
    res = 1.0 - (0.5 * z - (z * r - x * y));
  } else {
    REAL qx = (ax > 0.78125) ? 0.28125 : ppl_clear_low(ax * 0.25);
    precise REAL hz = 0.5 * z - qx;
    precise REAL a = 1.0 - qx;
    res = a - (hz - (z * r - x * y));
  }
  return res;
}

REAL ppl_sin(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  if (abs(x) <= 7.85398163397448278999e-01) return ppl_kernel_sin(x, 0.0, 0);
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
  if (abs(x) <= 7.85398163397448278999e-01) return ppl_kernel_cos(x, 0.0);
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
  const REAL PI = 3.141592653589793116;
  precise REAL r = x - 2.0 * trunc(x * 0.5);  // x mod 2 with the sign of x, exact
  REAL ar = abs(r);
  REAL sg = r < 0.0 ? -1.0 : 1.0;
  if (ar == 0.0 || ar == 1.0) return sg * 0.0;
  if (ar < 0.25) return ppl_sin(PI * r);
  if (ar < 0.75) return sg * ppl_cos(PI * (0.5 - ar));
  if (ar < 1.25) return ppl_sin(PI * (sg - r));
  if (ar < 1.75) return -sg * ppl_cos(PI * (ar - 1.5));
  return ppl_sin(PI * (r - 2.0 * sg));
}

// cos(pi*x), exactly zero at half-integers.
REAL ppl_cospi(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  const REAL PI = 3.141592653589793116;
  REAL ar = abs(x - 2.0 * trunc(x * 0.5));  // |x| mod 2, exact
  if (ar == 0.5 || ar == 1.5) return 0.0;
  if (ar < 0.25) return ppl_cos(PI * ar);
  if (ar < 0.75) return ppl_sin(PI * (0.5 - ar));
  if (ar < 1.25) return -ppl_cos(PI * (1.0 - ar));
  if (ar < 1.75) return ppl_sin(PI * (ar - 1.5));
  return ppl_cos(PI * (2.0 - ar));
}

// ---- shaders/prelude/tanh.glsl
// tanh(x): fdlibm s_tanh.c, error < ~2 ulp. Built on expm1 so that small |x| keeps full relative
// accuracy: for |x| >= 1, tanh = 1 - 2/(expm1(2|x|) + 2); for |x| < 1, -t/(t + 2) with
// t = expm1(-2|x|); |x| >= 22 (9 for f32) is +-1 to working precision. Generic over REAL.

REAL ppl_tanh(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL z;
  if (ax >= PPL_TANH_SATURATE) {
    z = 1.0;
  } else if (ax < PPL_TANH_TINY) {
    return x;
  } else if (ax >= 1.0) {
    REAL t = ppl_expm1(2.0 * ax);
    z = 1.0 - 2.0 / (t + 2.0);
  } else {
    REAL t = ppl_expm1(-2.0 * ax);
    z = -t / (t + 2.0);
  }
  return x < 0.0 ? -z : z;
}

// ---- shaders/prelude/logistic.glsl
// sigmoid, softplus and log_sigmoid, written exactly as the CPU backend's formulas
// (packages/tensor/src/cpu/scalar.ts) so that both backends round the same way.
// Generic over REAL.

// 1/(1 + exp(-x)) without overflow: for x < 0 use e/(1 + e) with e = exp(x) <= 1. Both cases
// take e = exp(-|x|) (that is exp(-x) for x >= 0 and exp(x) below), so that a subgroup with
// lanes of both signs evaluates one exp, not one in each branch.
REAL ppl_sigmoid(REAL x) {
  REAL e = ppl_exp(-abs(x));
  return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);  // NaN: e is NaN, and so is the result
}

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for x > 0, log1p(exp(x)) otherwise; as
// in ppl_sigmoid, both are log1p(exp(-|x|)), computed once.
REAL ppl_softplus(REAL x) {
  REAL l = ppl_log1p(ppl_exp(-abs(x)));
  return x > 0.0 ? x + l : l;
}

// log(sigmoid(x)) = -softplus(-x).
REAL ppl_log_sigmoid(REAL x) { return -ppl_softplus(-x); }

// ---- shaders/prelude/atan2.glsl
// atan(x) and atan2(y, x): fdlibm s_atan.c and e_atan2.c, error < 1 ulp.
// atan: reduce |x| to [0, 7/16] with atan(x) = atan(c) + atan((x - c)/(1 + c x)) for
// c in {1/2, 1, 3/2, inf}, the table values atan(c) kept in two parts; odd minimax polynomial
// of degree 23. atan2 handles signs, zeros and infinities as C99/IEEE (= JS Math.atan2).
// Generic over REAL.

REAL ppl_atan(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax >= 7.378697629483820646e+19) {  // |x| >= 2^66: +-pi/2
    precise REAL h = 1.57079632679489655800e+00 + 6.12323399573676603587e-17;
    return x > 0.0 ? h : -h;
  }
  int id;
  precise REAL t;
  if (ax < 0.4375) {
    if (ax < 7.450580596923828125e-09) return x;  // |x| < 2^-27
    id = -1;
    t = x;
  } else if (ax < 0.6875) {
    id = 0;
    t = (2.0 * ax - 1.0) / (2.0 + ax);
  } else if (ax < 1.1875) {
    id = 1;
    t = (ax - 1.0) / (ax + 1.0);
  } else if (ax < 2.4375) {
    id = 2;
    t = (ax - 1.5) / (1.0 + 1.5 * ax);
  } else {
    id = 3;
    t = -1.0 / ax;
  }
  precise REAL z = t * t;
  precise REAL w = z * z;
  // Odd and even halves of sum_{i=0..10} aT[i] z^(i+1), as fdlibm splits them.
  precise REAL s1 = z * (3.33333333333329318027e-01 + w * (1.42857142725034663711e-01
      + w * (9.09088713343650656196e-02 + w * (6.66107313738753120669e-02
      + w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))));
  precise REAL s2 = w * (-1.99999999998764832476e-01 + w * (-1.11111104054623557880e-01
      + w * (-7.69187620504482999495e-02 + w * (-5.83357013379057348645e-02
      + w * -3.65315727442169155270e-02))));
  if (id < 0) {
    precise REAL r0 = t - t * (s1 + s2);
    return r0;
  }
  REAL hi = id == 0 ? 4.63647609000806093515e-01 : id == 1 ? 7.85398163397448278999e-01
          : id == 2 ? 9.82793723247329054082e-01 : 1.57079632679489655800e+00;
  REAL lo = id == 0 ? 2.26987774529616870924e-17 : id == 1 ? 3.06161699786838301793e-17
          : id == 2 ? 1.39033110312309984516e-17 : 6.12323399573676603587e-17;
  precise REAL r = hi - ((t * (s1 + s2) - lo) - t);
  return x < 0.0 ? -r : r;
}

REAL ppl_atan2(REAL y, REAL x) {
  const REAL PI = 3.14159265358979311600e+00;
  const REAL PI_LO = 1.22464679914735317720e-16;
  const REAL PIO2 = 1.57079632679489655800e+00;
  const REAL PIO4 = 7.85398163397448278999e-01;
  if (ppl_isnan(x) || ppl_isnan(y)) return PPL_NAN;
  // Sign bits, so that -0 counts as negative (atan2(+0, -0) = pi, atan2(-0, +0) = -0).
  bool yneg = ppl_signbit(y);
  bool xneg = ppl_signbit(x);
  if (y == 0.0) return xneg ? (yneg ? -PI : PI) : y;
  if (x == 0.0) return yneg ? -PIO2 : PIO2;
  if (ppl_isinf(x)) {
    if (ppl_isinf(y)) {
      REAL a = xneg ? 3.0 * PIO4 : PIO4;
      return yneg ? -a : a;
    }
    REAL b = xneg ? PI : 0.0;
    return yneg ? -b : b;
  }
  if (ppl_isinf(y)) return yneg ? -PIO2 : PIO2;
  REAL q = abs(y / x);
  REAL z = ppl_atan(q);  // |y/x| overflowing to inf gives pi/2, underflowing to 0 gives 0
  precise REAL res;
  if (!xneg) res = z;
  else res = PI - (z - PI_LO);
  return yneg ? -res : res;
}

// ---- shaders/prelude/pow.glsl
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
    m *= 0.5;
    k += 1;
  }
  precise REAL f = m - 1.0;  // exact
  REAL dh, dl;
  ppl_fast_two_sum(2.0, f, dh, dl);  // 2 + f = dh + dl exactly
  precise REAL sh = f / dh;
  REAL ph, pl;
  ppl_two_prod(sh, dh, ph, pl);
  precise REAL sl = (((f - ph) - pl) - sh * dl) / dh;  // s - sh, from the exact residual
  precise REAL z = sh * sh;
  precise REAL tail = 2.0 * sh * z * (0.33333333333333333333 + z * (0.2 + z * (0.14285714285714285714
      + z * (0.11111111111111111111 + z * (0.09090909090909090909 + z * (0.07692307692307692308
      + z * (0.06666666666666666667 + z * (0.05882352941176470588 + z * (0.05263157894736842105
      + z * (0.04761904761904761905 + z * (0.04347826086956521739 + z * 0.04)))))))))));
  REAL ah, al;
  ppl_fast_two_sum(2.0 * sh, 2.0 * sl + tail, ah, al);
  REAL dk = REAL(k);
  REAL bh, bl;
  ppl_two_sum(dk * PPL_LN2_HI, ah, bh, bl);  // dk * LN2_HI is exact
  precise REAL lo = bl + (al + dk * PPL_LN2_LO);
  ppl_fast_two_sum(bh, lo, lh, ll);
}

REAL ppl_pow(REAL x, REAL y) {
  if (ppl_isnan(y)) return PPL_NAN;
  if (y == 0.0) return 1.0;
  if (ppl_isnan(x)) return PPL_NAN;
  REAL ax = abs(x);
  if (ppl_isinf(y)) {
    if (ax == 1.0) return PPL_NAN;
    return ((ax > 1.0) == (y > 0.0)) ? PPL_INF : 0.0;
  }
  bool yint = floor(y) == y;
  bool yodd = yint && floor(y * 0.5) != y * 0.5;  // |y| >= 2^53 (2^24) is always even
  if (x == 0.0) {  // +-0: the sign survives only for odd integer y
    if (y > 0.0) return yodd ? x : 0.0;
    return (yodd && ppl_signbit(x)) ? -PPL_INF : PPL_INF;
  }
  if (ppl_isinf(x)) {
    if (x > 0.0) return y > 0.0 ? PPL_INF : 0.0;
    if (y > 0.0) return yodd ? -PPL_INF : PPL_INF;
    return yodd ? 1.0 / x : 0.0;  // -0 or +0
  }
  REAL sgn = 1.0;
  if (x < 0.0) {
    if (!yint) return PPL_NAN;
    if (yodd) sgn = -1.0;
  }
  if (ax == 1.0) return sgn;
  REAL lh, ll;
  ppl_log_dw(ax, lh, ll);
  REAL w0 = y * lh;
  // Far outside the exp range: decide before forming the exact product (which could overflow).
  if (w0 > 2.0 * PPL_EXP_OVERFLOW) return sgn * PPL_INF;
  if (w0 < 2.0 * PPL_EXP_UNDERFLOW) return sgn * 0.0;
  REAL wh, wl;
  ppl_two_prod(y, lh, wh, wl);
  precise REAL wlo = wl + y * ll;
  REAL eh, el;
  ppl_fast_two_sum(wh, wlo, eh, el);
  return sgn * ppl_exp_dw(eh, el);
}

// ---- shaders/prelude/erf.glsl
// erf and erfc: fdlibm s_erf.c (the scheme of W. J. Cody's rational approximations, as ported by
// stdlib, the CPU reference), error < 1 ulp; erfc keeps full relative accuracy in the right tail
// up to its underflow at x ~ 27 (f64). Intervals:
//   |x| < 0.84375:        erf = x + x*P(x^2)/Q(x^2)
//   0.84375 <= |x| < 1.25: erf = erx + P(s)/Q(s), s = |x| - 1
//   1.25 <= |x| < 28:      erfc = exp(-z^2 - 0.5625) * exp((z - x)(z + x) + R(1/x^2)/S(1/x^2)) / x,
//                          z = x with its low bits cleared so that z^2 is exact.
// Generic over REAL.

REAL ppl_erf_pp(REAL z) {
  return 1.28379167095512558561e-01 + z * (-0.3250421072470015 + z * (-0.02848174957559851
      + z * (-0.005770270296489442 + z * -0.000023763016656650163)));
}
REAL ppl_erf_qq(REAL z) {
  return 1.0 + z * (0.39791722395915535 + z * (0.0650222499887673 + z * (0.005081306281875766
      + z * (0.00013249473800432164 + z * -0.000003960228278775368))));
}
REAL ppl_erf_pa(REAL s) {
  return -2.36211856075265944077e-03 + s * (0.41485611868374833 + s * (-0.3722078760357013
      + s * (0.31834661990116175 + s * (-0.11089469428239668 + s * (0.035478304325618236
      + s * -0.002166375594868791)))));
}
REAL ppl_erf_qa(REAL s) {
  return 1.0 + s * (0.10642088040084423 + s * (0.540397917702171 + s * (0.07182865441419627
      + s * (0.12617121980876164 + s * (0.01363708391202905 + s * 0.011984499846799107)))));
}

// exp(-x^2 - 0.5625 + R/S) / x for 1.25 <= x < 28: the common tail of erf and erfc.
REAL ppl_erfc_tail(REAL ax) {
  REAL s = 1.0 / (ax * ax);
  REAL r;
  REAL q;
  if (ax < 2.857142857142857) {  // 1/0.35
    r = -9.86494403484714822705e-03 + s * (-0.6938585727071818 + s * (-10.558626225323291
        + s * (-62.375332450326006 + s * (-162.39666946257347 + s * (-184.60509290671104
        + s * (-81.2874355063066 + s * -9.814329344169145))))));
    q = 1.0 + s * (19.651271667439257 + s * (137.65775414351904 + s * (434.56587747522923
        + s * (645.3872717332679 + s * (429.00814002756783 + s * (108.63500554177944
        + s * (6.570249770319282 + s * -0.0604244152148581)))))));
  } else {
    r = -9.86494292470009928597e-03 + s * (-0.799283237680523 + s * (-17.757954917754752
        + s * (-160.63638485582192 + s * (-637.5664433683896 + s * (-1025.0951316110772
        + s * -483.5191916086514)))));
    q = 1.0 + s * (30.33806074348246 + s * (325.7925129965739 + s * (1536.729586084437
        + s * (3199.8582195085955 + s * (2553.0504064331644 + s * (474.52854120695537
        + s * -22.44095244658582))))));
  }
  REAL z = ppl_clear_low(ax);
  precise REAL d = (z - ax) * (z + ax);
  return ppl_exp(-z * z - 0.5625) * ppl_exp(d + r / q) / ax;
}

REAL ppl_erf(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL sg = x < 0.0 ? -1.0 : 1.0;
  if (ax < 0.84375) {
    if (ax < PPL_ERF_SMALL) return x + 1.28379167095512586316e-01 * x;
    REAL z = x * x;
    return x + x * (ppl_erf_pp(z) / ppl_erf_qq(z));
  }
  if (ax < 1.25) {
    REAL s = ax - 1.0;
    return sg * (8.45062911510467529297e-01 + ppl_erf_pa(s) / ppl_erf_qa(s));
  }
  if (ax >= 6.0) return sg;
  return sg * (1.0 - ppl_erfc_tail(ax));
}

REAL ppl_erfc(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax < 0.84375) {
    if (ax < 1.3877787807814457e-17) return 1.0 - x;  // |x| < 2^-56
    REAL z = x * x;
    REAL y = ppl_erf_pp(z) / ppl_erf_qq(z);
    if (x < 0.25) return 1.0 - (x + x * y);
    return 0.5 - (x * y + (x - 0.5));
  }
  if (ax < 1.25) {
    REAL s = ax - 1.0;
    REAL pq = ppl_erf_pa(s) / ppl_erf_qa(s);
    return x < 0.0 ? 1.0 + 8.45062911510467529297e-01 + pq
                      : 1.0 - 8.45062911510467529297e-01 - pq;
  }
  if (ax < 28.0) {
    if (x < -6.0) return 2.0;
    REAL t = ppl_erfc_tail(ax);
    return x < 0.0 ? 2.0 - t : t;
  }
  return x < 0.0 ? 2.0 : 0.0;
}

// ---- shaders/prelude/lgamma.glsl
// lgamma(x) = log|Gamma(x)|: fdlibm e_lgamma_r.c (as ported by stdlib's gammaln, the CPU
// reference), error < ~1 ulp away from the zeros at 1 and 2 and small absolute error near them.
// Intervals: [0, 2) by minimax approximations around 1, 2 and the minimum 1.4616 (so the
// zeros at 1 and 2 come out with full relative accuracy); [2, 8) by a rational approximation
// of lgamma(2 + f) and the recurrence; [8, 2^56) by Stirling's series; negative non-integers
// by the reflection lgamma(-x) = log(pi / |x sin(pi x)|) - lgamma(x) (sin(pi x) from ppl_sinpi).
// Poles (0 and negative integers) give +inf; +-inf give +-inf (as the CPU). Generic over REAL.

REAL ppl_lgamma(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return x;  // lgamma(-inf) = -inf, as the CPU reference
  if (x == 0.0) return PPL_INF;
  bool neg = x < 0.0;
  REAL ax = abs(x);
  if (ax < 1.3877787807814457e-17) return -ppl_log(ax);  // |x| < 2^-56
  REAL nadj = 0.0;
  if (neg) {
    if (ax >= PPL_ALL_INTEGERS) return PPL_INF;
    REAL t = ppl_sinpi(ax);
    if (t == 0.0) return PPL_INF;
    nadj = ppl_log(3.14159265358979311600e+00 / abs(t * ax));
  }
  if (ax == 1.0 || ax == 2.0) return neg ? nadj : 0.0;
  REAL r;
  const REAL YMIN = 1.461632144968362245;
  const REAL TC = 1.46163214496836224576e+00;
  if (ax < 2.0) {
    REAL y;
    int flg;
    if (ax <= 0.9) {
      r = -ppl_log(ax);
      if (ax >= YMIN - 1.0 + 0.27) { y = 1.0 - ax; flg = 0; }
      else if (ax >= YMIN - 1.0 - 0.27) { y = ax - (TC - 1.0); flg = 1; }
      else { y = ax; flg = 2; }
    } else {
      r = 0.0;
      if (ax >= YMIN + 0.27) { y = 2.0 - ax; flg = 0; }
      else if (ax >= YMIN - 0.27) { y = ax - TC; flg = 1; }
      else { y = ax - 1.0; flg = 2; }
    }
    if (flg == 0) {
      REAL z = y * y;
      REAL p1 = 7.72156649015328655494e-02 + z * (0.06735230105312927 + z * (0.007385550860814029
          + z * (0.0011927076318336207 + z * (0.00022086279071390839 + z * 0.000025214456545125733))));
      REAL p2 = z * (3.22467033424113591611e-01 + z * (0.020580808432516733 + z * (0.0028905138367341563
          + z * (0.0005100697921535113 + z * (0.00010801156724758394 + z * 0.000044864094961891516)))));
      REAL p = y * p1 + p2;
      r += p - 0.5 * y;
    } else if (flg == 1) {
      REAL z = y * y;
      REAL w = z * y;
      REAL p1 = 4.83836122723810047042e-01 + w * (-0.032788541075985965 + w * (0.006100538702462913
          + w * (-0.0014034646998923284 + w * 0.00031563207090362595)));
      REAL p2 = -1.47587722994593911752e-01 + w * (0.01797067508118204 + w * (-0.0036845201678113826
          + w * (0.000881081882437654 + w * -0.00031275416837512086)));
      REAL p3 = 6.46249402391333854778e-02 + w * (-0.010314224129834144 + w * (0.0022596478090061247
          + w * (-0.0005385953053567405 + w * 0.0003355291926355191)));
      REAL p = z * p1 - (-3.63867699703950536541e-18 - w * (p2 + y * p3));
      r += -1.21486290535849611461e-01 + p;
    } else {
      REAL p1 = y * (-7.72156649015328655494e-02 + y * (0.6328270640250934 + y * (1.4549225013723477
          + y * (0.9777175279633727 + y * (0.22896372806469245 + y * 0.013381091853678766)))));
      REAL p2 = 1.0 + y * (2.4559779371304113 + y * (2.128489763798934 + y * (0.7692851504566728
          + y * (0.10422264559336913 + y * 0.003217092422824239))));
      r += -0.5 * y + p1 / p2;
    }
  } else if (ax < 8.0) {
    int i = int(ax);
    REAL y = ax - REAL(i);
    REAL p = y * (-7.72156649015328655494e-02 + y * (0.21498241596060885 + y * (0.325778796408931
        + y * (0.14635047265246445 + y * (0.02664227030336386 + y * (0.0018402845140733772
        + y * 0.00003194753265841009))))));
    REAL q = 1.0 + y * (1.3920053346762105 + y * (0.7219355475671381 + y * (0.17193386563280308
        + y * (0.01864591917156529 + y * (0.0007779424963818936 + y * 0.000007326684307446256)))));
    r = 0.5 * y + p / q;
    REAL z = 1.0;  // lgamma(1 + s) = log(s) + lgamma(s)
    if (i >= 7) z *= y + 6.0;
    if (i >= 6) z *= y + 5.0;
    if (i >= 5) z *= y + 4.0;
    if (i >= 4) z *= y + 3.0;
    if (i >= 3) {
      z *= y + 2.0;
      r += ppl_log(z);
    }
  } else if (ax < 72057594037927936.0) {  // 2^56
    REAL t = ppl_log(ax);
    REAL z = 1.0 / ax;
    REAL y = z * z;
    REAL w = 4.18938533204672725052e-01 + z * (0.08333333333333297 + y * (-0.0027777777772877554
        + y * (0.0007936505586430196 + y * (-0.00059518755745034 + y * (0.0008363399189962821
        + y * -0.0016309293409657527)))));
    r = (ax - 0.5) * (t - 1.0) + w;
  } else {
    r = ax * (ppl_log(ax) - 1.0);
  }
  return neg ? nadj - r : r;
}

// ---- shaders/prelude/digamma.glsl
// digamma(x) = psi(x) = d/dx lgamma(x): the Boost scheme ported by stdlib (the CPU reference).
//   x >= 10:      psi(x) = log(x-1) + 1/(2(x-1)) - sum_k B_2k/(2k (x-1)^2k)  (asymptotic series)
//   1 <= x <= 2:  psi(x) = (x - x0) * (Y + P(x-1)/Q(x-1)), x0 = 1.46163... the positive root
//                 (x0 carried in three parts), so psi keeps full relative accuracy at its root;
//   other x > -1: the recurrence psi(x+1) = psi(x) + 1/x down or up into [1, 2];
//   x <= -1:      reflection psi(1-x) - psi(x) = pi cot(pi x) (computed as pi cospi/sinpi).
// Poles (0 and negative integers) give NaN, as the CPU reference. Generic over REAL.

REAL ppl_digamma_rational(REAL t) {
  // P/Q evaluated in t or, for |t| > 1, in 1/t (stdlib's evalrational); here t = x - 1 in [0, 1].
  REAL s1 = 0.25479851061131553 + t * (-0.3255503118680449 + t * (-0.6503185377089651
      + t * (-0.28919126444774784 + t * (-0.04525132144873906 + t * -0.002071332116774595))));
  REAL s2 = 1.0 + t * (2.076711702373047 + t * (1.4606242909763516 + t * (0.43593529692665967
      + t * (0.054151797245674226 + t * (0.0021284987017821146 + t * -5.578984132167551e-7)))));
  return s1 / s2;
}

REAL ppl_digamma(REAL x) {
  if (ppl_isnan(x) || x == 0.0) return PPL_NAN;
  if (ppl_isinf(x)) return x > 0.0 ? x : PPL_NAN;
  REAL tmp = 0.0;
  if (x <= -1.0) {
    x = 1.0 - x;
    REAL rem = x - floor(x);
    if (rem > 0.5) rem -= 1.0;
    if (rem == 0.0) return PPL_NAN;
    tmp = 3.14159265358979311600e+00 * ppl_cospi(rem) / ppl_sinpi(rem);
  }
  if (x >= 10.0) {
    REAL xm = x - 1.0;
    REAL z = 1.0 / (xm * xm);
    REAL p = 0.08333333333333333 + z * (-0.008333333333333333 + z * (0.003968253968253968
        + z * (-0.004166666666666667 + z * (0.007575757575757576 + z * (-0.021092796092796094
        + z * (0.08333333333333333 + z * -0.4432598039215686))))));
    return tmp + (ppl_log(xm) + 1.0 / (2.0 * xm) - z * p);
  }
  while (x > 2.0) {
    x -= 1.0;
    tmp += 1.0 / x;
  }
  while (x < 1.0) {
    tmp -= 1.0 / x;
    x += 1.0;
  }
  // x - x0 with x0 in three parts, subtracted in this order: `precise`, or the compiler folds
  // the three constants into one and the digits below the first part are lost.
  precise REAL g = x - PPL_DIGAMMA_ROOT1;  // the split is per type (real_f32.glsl, real_f64.glsl)
  g -= PPL_DIGAMMA_ROOT2;
  g -= PPL_DIGAMMA_ROOT3;
  REAL rr = ppl_digamma_rational(x - 1.0);
  return tmp + (g * 0.99558162689208984 + g * rr);
}

// ---- shaders/prelude/polygamma.glsl
// polygamma(n, x) = d^n/dx^n digamma(x) for n = 0..3 (n = 0 is ppl_digamma; other n give NaN).
// For x > 0: the recurrence psi_n(x) = psi_n(x+1) + (-1)^(n+1) n!/x^(n+1) shifts x to >= 16
// (a sum of same-signed terms, so no cancellation), then the asymptotic series
//   (-1)^(n+1) psi_n(x) ~ (n-1)!/x^n * (1 + n/(2x) + sum_{k=1..10} c_k(n)/x^(2k)),
//   c_k(n) = B_2k (2k+n-1)! / ((2k)! (n-1)!),
// whose first omitted term is below 1e-19 relative at x = 16. Relative error ~1e-15 (f64).
// For x < 0 (non-integer): reflection, from differentiating psi(1-x) - psi(x) = pi cot(pi x):
//   psi_1(x) = -psi_1(1-x) + pi^2 / sin^2(pi x)
//   psi_2(x) =  psi_2(1-x) - 2 pi^3 cos(pi x) / sin^3(pi x)
//   psi_3(x) = -psi_3(1-x) + 2 pi^4 (2 cos^2(pi x) + 1) / sin^4(pi x)
// with sin(pi x), cos(pi x) from ppl_sinpi/ppl_cospi (exact reduction). At the poles (0 and
// negative integers) the values follow the CPU reference: NaN for n = 1, +inf for n = 2 and 3.
// (For tiny x > 0 the CPU reference returns +inf for n = 2; the true limit, returned here, is -inf.)
// Generic over REAL.

REAL ppl_polygamma_pos(int n, REAL x) {
  REAL acc = 0.0;
  while (x < 16.0) {
    REAL inv = 1.0 / x;
    REAL p = inv * inv;  // 1/x^2
    if (n >= 2) p *= inv;
    if (n >= 3) p *= inv;
    acc += p;
    x += 1.0;
  }
  REAL inv = 1.0 / x;
  REAL z = inv * inv;
  REAL s;
  REAL lead;  // (n-1)!/x^n
  REAL nfact;  // n!
  if (n == 1) {
    s = z * (0.16666666666666666 + z * (-0.033333333333333333 + z * (0.023809523809523808
        + z * (-0.033333333333333333 + z * (0.07575757575757576 + z * (-0.2531135531135531
        + z * (1.1666666666666667 + z * (-7.0921568627450977 + z * (54.971177944862156
        + z * -529.12424242424242)))))))));
    lead = inv;
    nfact = 1.0;
  } else if (n == 2) {
    s = z * (0.5 + z * (-0.16666666666666666 + z * (0.16666666666666666
        + z * (-0.29999999999999999 + z * (0.83333333333333337 + z * (-3.2904761904761903
        + z * (17.5 + z * (-120.56666666666666 + z * (1044.452380952381
        + z * -11111.609090909091)))))))));
    lead = z;
    nfact = 2.0;
  } else {
    s = z * (1.0 + z * (-0.5 + z * (0.66666666666666663 + z * (-1.5 + z * (5.0
        + z * (-23.033333333333335 + z * (140.0 + z * (-1085.0999999999999
        + z * (10444.523809523809 + z * -122227.7)))))))));
    lead = 2.0 * z * inv;
    nfact = 6.0;
  }
  REAL asym = lead * (1.0 + REAL(n) * 0.5 * inv + s);
  REAL v = nfact * acc + asym;
  return (n == 2) ? -v : v;
}

REAL ppl_polygamma(int n, REAL x) {
  if (n == 0) return ppl_digamma(x);
  if (n < 0 || n > 3 || ppl_isnan(x)) return PPL_NAN;
  if (x > 0.0) return ppl_isinf(x) ? (n == 2 ? -0.0 : 0.0) : ppl_polygamma_pos(n, x);
  if (ppl_isinf(x)) return PPL_NAN;
  if (floor(x) == x) return n == 1 ? PPL_NAN : PPL_INF;
  const REAL PI = 3.14159265358979311600e+00;
  REAL sp = ppl_sinpi(x);
  REAL cp = ppl_cospi(x);
  REAL reflected = ppl_polygamma_pos(n, 1.0 - x);
  REAL pis = PI / sp;
  REAL pis2 = pis * pis;
  if (n == 1) return -reflected + pis2;
  if (n == 2) return reflected - 2.0 * pis2 * pis * cp;
  return -reflected + 2.0 * pis2 * pis2 * (2.0 * cp * cp + 1.0);
}

REAL ppl_trigamma(REAL x) { return ppl_polygamma(1, x); }

// ---- shaders/prelude/cdf.glsl
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
#define PPL_LENTZ_TINY 1.0e-30

// Acklam's rational approximation of the normal quantile for 0 < p <= 1/2 (relative error
// 1.2e-9), refined by one Halley step on Phi(x) - p, which gives full precision in f64. The
// step is skipped for subnormal p, where exp(x^2/2) would overflow.
REAL ppl_inv_phi_lower(REAL p) {
  REAL x;
  if (p < 0.02425) {
    REAL q = sqrt(-2.0 * ppl_log(p));
    x = (((((-7.784894002430293e-03 * q + -3.223964580411365e-01) * q + -2.400758277161838e+00) * q
        + -2.549732539343734e+00) * q + 4.374664141464968e+00) * q + 2.938163982698783e+00)
        / ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q + 2.445134137142996e+00) * q
        + 3.754408661907416e+00) * q + 1.0);
  } else {
    REAL q = p - 0.5;
    REAL r = q * q;
    x = (((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r + -2.759285104469687e+02) * r
        + 1.383577518672690e+02) * r + -3.066479806614716e+01) * r + 2.506628277459239e+00) * q
        / (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r + -1.556989798598866e+02) * r
        + 6.680131188771972e+01) * r + -1.328068155288572e+01) * r + 1.0);
  }
  if (p < PPL_MIN_NORMAL) return x;
  REAL e = 0.5 * ppl_erfc(-x * 0.70710678118654752440) - p;
  REAL u = e * 2.50662827463100050242 * ppl_exp(0.5 * x * x);
  return x - u / (1.0 + 0.5 * x * u);
}

REAL ppl_inv_phi(REAL p) {
  if (ppl_isnan(p) || p < 0.0 || p > 1.0) return PPL_NAN;
  if (p == 0.0) return -PPL_INF;
  if (p == 1.0) return PPL_INF;
  // 1 - p is exact for p >= 1/2, so the upper half reuses the lower tail without cancellation.
  return p > 0.5 ? -ppl_inv_phi_lower(1.0 - p) : ppl_inv_phi_lower(p);
}

// log(x^a e^-x / Gamma(a)): the prefactor of the series and of the continued fraction.
REAL ppl_gamma_log_prefactor(REAL a, REAL x) {
  return a * ppl_log(x) - x - ppl_lgamma(a);
}

// P(a, x) = x^a e^-x / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n)), used for x < a + 1, where the
// terms fall at least geometrically after n ~ x - a.
REAL ppl_gamma_p_series(REAL a, REAL x) {
  REAL ap = a;
  REAL term = 1.0 / a;
  REAL sum = term;
  for (int n = 0; n < 10000; n++) {
    ap += 1.0;
    term *= x / ap;
    sum += term;
    if (abs(term) < abs(sum) * PPL_EPS) break;
  }
  return sum * ppl_exp(ppl_gamma_log_prefactor(a, x));
}

// Q(a, x) by Legendre's continued fraction (modified Lentz), used for x >= a + 1.
REAL ppl_gamma_q_fraction(REAL a, REAL x) {
  REAL b = x + 1.0 - a;
  REAL c = 1.0 / PPL_LENTZ_TINY;
  REAL d = 1.0 / b;
  REAL h = d;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    b += 2.0;
    d = an * d + b;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = b + an / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - 1.0) < PPL_EPS) break;
  }
  return ppl_exp(ppl_gamma_log_prefactor(a, x)) * h;
}

REAL ppl_gamma_p(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return 0.0;
  if (ppl_isinf(x)) return 1.0;
  return x < a + 1.0 ? ppl_gamma_p_series(a, x) : 1.0 - ppl_gamma_q_fraction(a, x);
}

REAL ppl_gamma_q(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return 1.0;
  if (ppl_isinf(x)) return 0.0;
  return x < a + 1.0 ? 1.0 - ppl_gamma_p_series(a, x) : ppl_gamma_q_fraction(a, x);
}

// dP(a, x)/da (see packages/tensor/src/cpu/special.ts, gammaPDa): below x = a + 1 the series of P
// differentiated term by term, P (log x - psi(a+1)) - x^a e^-x / Gamma(a+1) sum_n s_n H_n with
// s_n = x^n / ((a+1)...(a+n)) and H_n = sum_{k<=n} 1/(a+k); above, -dQ/da from Q's continued
// fraction differentiated in a alongside its value (forward mode through the Lentz steps).
REAL ppl_gamma_p_da(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0 || ppl_isinf(x)) return 0.0;
  REAL logx = ppl_log(x);
  if (x < a + 1.0) {
    REAL s = 1.0;
    REAL sum = 1.0;
    REAL hn = 0.0;
    REAL sumH = 0.0;
    for (int n = 1; n < 10000; n++) {
      hn += 1.0 / (a + REAL(n));
      s *= x / (a + REAL(n));
      sum += s;
      sumH += s * hn;
      if (s < sum * PPL_EPS && s * hn < sumH * PPL_EPS) break;
    }
    REAL pref = ppl_exp(a * logx - x - ppl_lgamma(a + 1.0));
    return pref * (sum * (logx - ppl_digamma(a + 1.0)) - sumH);
  }
  REAL b = x + 1.0 - a;
  REAL db = -1.0;
  REAL c = 1.0 / PPL_LENTZ_TINY;
  REAL dc = 0.0;
  REAL d = 1.0 / b;
  REAL dd = -db / (b * b);
  REAL h = d;
  REAL dh = dd;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    REAL dan = REAL(i);
    b += 2.0;
    REAL raw = an * d + b;
    REAL draw = dan * d + an * dd + db;
    if (abs(raw) < PPL_LENTZ_TINY) { raw = PPL_LENTZ_TINY; draw = 0.0; }
    REAL nc = b + an / c;
    REAL dnc = db + (dan - an * dc / c) / c;  // d(an/c)/da, without squaring c (which starts at 1/tiny)
    if (abs(nc) < PPL_LENTZ_TINY) { nc = PPL_LENTZ_TINY; dnc = 0.0; }
    c = nc;
    dc = dnc;
    d = 1.0 / raw;
    dd = -draw / (raw * raw);
    REAL del = d * c;
    REAL ddel = dd * c + d * dc;
    REAL ndh = dh * del + h * ddel;
    bool done = abs(del - 1.0) < PPL_EPS && abs(ndh - dh) <= PPL_EPS * abs(ndh);
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
  REAL qap = a + 1.0;
  REAL qam = a - 1.0;
  REAL c = 1.0;
  REAL d = 1.0 - qab * x / qap;
  if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
  d = 1.0 / d;
  REAL h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = 2.0 * rm;
    REAL aa = rm * (b - rm) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = 1.0 + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + rm) * (qab + rm) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = 1.0 + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - 1.0) < PPL_EPS) break;
  }
  return h;
}

REAL ppl_betainc(REAL a, REAL b, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > 0.0) || !(b > 0.0) || x < 0.0 || x > 1.0) {
    return PPL_NAN;
  }
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  // log(x^a (1-x)^b / B(a, b))
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return ppl_exp(lf) * ppl_beta_fraction(a, b, x) / a;
  return 1.0 - ppl_exp(lf) * ppl_beta_fraction(b, a, 1.0 - x) / b;
}

// Dual numbers (value, d/da, d/db) for differentiating the beta continued fraction in its shapes.
REAL3 ppl_dual_mul(REAL3 u, REAL3 v) { return REAL3(u.x * v.x, u.x * v.y + u.y * v.x, u.x * v.z + u.z * v.x); }
REAL3 ppl_dual_div(REAL3 u, REAL3 v) {
  REAL q = u.x / v.x;
  return REAL3(q, (u.y - q * v.y) / v.x, (u.z - q * v.z) / v.x);
}
REAL3 ppl_dual_guard(REAL3 u) { return abs(u.x) < PPL_LENTZ_TINY ? REAL3(PPL_LENTZ_TINY, 0.0, 0.0) : u; }

// ppl_beta_fraction on dual numbers of its shapes a and b (forward mode through the Lentz steps),
// run until the value and both derivatives have settled.
REAL3 ppl_beta_fraction_dual(REAL a, REAL b, REAL x) {
  REAL3 A = REAL3(a, 1.0, 0.0);
  REAL3 B = REAL3(b, 0.0, 1.0);
  REAL3 one = REAL3(1.0, 0.0, 0.0);
  REAL3 qab = REAL3(a + b, 1.0, 1.0);
  REAL3 qap = A + one;
  REAL3 qam = A - one;
  REAL3 c = one;
  REAL3 d = ppl_dual_div(one, ppl_dual_guard(one - ppl_dual_div(qab * x, qap)));
  REAL3 h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = 2.0 * rm;
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
    if (abs(del.x - 1.0) < PPL_EPS && settled) break;
  }
  return h;
}

// dI_x(a, b)/da (wrt = 0) or /db (wrt = 1): the prefactor x^a (1-x)^b / B(a, b) through digamma and
// the continued fraction through its dual, on the side where it converges (as ppl_betainc).
REAL ppl_betainc_grad(REAL a, REAL b, REAL x, int wrt) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > 0.0) || !(b > 0.0) || x < 0.0 || x > 1.0) {
    return PPL_NAN;
  }
  if (x == 0.0 || x == 1.0) return 0.0;
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  REAL psab = ppl_digamma(a + b);
  REAL lfa = psab - ppl_digamma(a) + ppl_log(x);
  REAL lfb = psab - ppl_digamma(b) + ppl_log1p(-x);
  REAL f = ppl_exp(lf);
  if (x < (a + 1.0) / (a + b + 2.0)) {
    REAL3 h = ppl_beta_fraction_dual(a, b, x);
    return wrt == 0 ? f * (lfa * h.x / a + h.y / a - h.x / (a * a)) : f * (lfb * h.x / a + h.z / a);
  }
  // cf(b, a, 1 - x): its first shape is b (the .y part), its second a (.z).
  REAL3 h = ppl_beta_fraction_dual(b, a, 1.0 - x);
  return wrt == 0 ? -f * (lfa * h.x / b + h.z / b) : -f * (lfb * h.x / b + h.y / b - h.x / (b * b));
}

// (1/2pi) int_0^a exp(-h^2 (1+t^2)/2) / (1+t^2) dt for h >= 0, 0 <= a <= 1, by 32-point
// Gauss-Legendre over the part of [0, a] where the integrand is above exp(-50) of its value at 0.
REAL ppl_owens_t_quadrature(REAL h, REAL a) {
  const REAL nodes[16] = REAL[16](0.048307665687738324, 0.1444719615827965, 0.23928736225213706, 0.33186860228212767, 0.42135127613063533, 0.5068999089322294, 0.5877157572407623, 0.6630442669302152, 0.7321821187402897, 0.7944837959679424, 0.84936761373257, 0.8963211557660521, 0.9349060759377397, 0.9647622555875064, 0.9856115115452684, 0.9972638618494816);
  const REAL weights[16] = REAL[16](0.09654008851472766, 0.09563872007927471, 0.09384439908080451, 0.09117387869576378, 0.08765209300440378, 0.08331192422694671, 0.07819389578707023, 0.07234579410884834, 0.06582222277636168, 0.058684093478535565, 0.05099805926237609, 0.042835898022226836, 0.034273862913021765, 0.025392065309262024, 0.016274394730905743, 0.007018610009470506);
  REAL u = h * a > 10.0 ? 10.0 / h : a;
  REAL hw = 0.5 * u;
  REAL s = 0.0;
  for (int k = 0; k < 16; k++) {
    REAL t1 = hw * (1.0 - nodes[k]);
    REAL t2 = hw * (1.0 + nodes[k]);
    REAL q1 = 1.0 + t1 * t1;
    REAL q2 = 1.0 + t2 * t2;
    s += weights[k] * (ppl_exp(-0.5 * h * h * q1) / q1 + ppl_exp(-0.5 * h * h * q2) / q2);
  }
  return s * hw * 0.15915494309189533577;  // 1 / (2 pi)
}

// T is even in h and odd in a; for |a| > 1, T(h, a) = Q(h)/2 + Q(ah)/2 - Q(h) Q(ah) - T(ah, 1/a)
// with upper normal tails Q (which do not cancel for large h) maps the integral onto [0, 1].
REAL ppl_owens_t(REAL h, REAL a) {
  if (ppl_isnan(h) || ppl_isnan(a)) return PPL_NAN;
  REAL sg = a < 0.0 ? -1.0 : 1.0;
  REAL aa = abs(a);
  REAL ah = abs(h);
  if (aa == 0.0 || ppl_isinf(ah)) return 0.0;
  if (aa <= 1.0) return sg * ppl_owens_t_quadrature(ah, aa);
  if (ah == 0.0) return sg * ppl_atan(aa) * 0.15915494309189533577;
  REAL qh = 0.5 * ppl_erfc(ah * 0.70710678118654752440);
  REAL qah = 0.5 * ppl_erfc(aa * ah * 0.70710678118654752440);
  REAL rest = ppl_isinf(aa) ? 0.0 : ppl_owens_t_quadrature(aa * ah, 1.0 / aa);
  return sg * (0.5 * qh + 0.5 * qah - qh * qah - rest);
}

#undef PPL_LENTZ_TINY

// ---- shaders/prelude/normal.glsl
// Uniform and standard normal variates from one Philox block (x0, x1, x2, x3), as
// packages/ppl/src/random/streams.ts: u0 = uniform(x0, x1), u1 = uniform(x2, x3) and the
// Box-Muller pair n0 = r cos(2 pi u1), n1 = r sin(2 pi u1), r = sqrt(-2 log u0).
// f64: uniforms are bit-exact; normals use the fdlibm log/cos/sin ports (the algorithms JS
// Math uses), so they match the CPU to the last bit wherever the device rounds IEEE-exactly.
// f32: uniforms are the f64 ones correctly rounded to float (see ppl_uniform_f32); normals are
// computed in float, within a few float ulp of the f64 ones. Generic over REAL.

REAL PPL_SFX(ppl_uniform0)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.x, w.y); }
REAL PPL_SFX(ppl_uniform1)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.z, w.w); }

REAL PPL_SFX(ppl_box_muller_radius)(uvec4 w) {
  return sqrt(-2.0 * ppl_log(PPL_SFX(ppl_uniform)(w.x, w.y)));
}
REAL PPL_SFX(ppl_normal0)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_cos(6.283185307179586 * PPL_SFX(ppl_uniform)(w.z, w.w));
}
REAL PPL_SFX(ppl_normal1)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_sin(6.283185307179586 * PPL_SFX(ppl_uniform)(w.z, w.w));
}

// ---- shaders/prelude/real_end.glsl
// Ends one instantiation of the generic prelude files (see real_f64.glsl).
#undef REAL
#undef PPL_SFX
#undef PPL_NAN
#undef PPL_INF
#undef PPL_LN2_HI
#undef PPL_LN2_LO
#undef PPL_EXP_OVERFLOW
#undef PPL_EXP_UNDERFLOW
#undef PPL_EXP_TINY
#undef PPL_EXPM1_SATURATE
#undef PPL_EXPM1_TINY
#undef PPL_EXPM1_KSPLIT
#undef PPL_TANH_SATURATE
#undef PPL_TANH_TINY
#undef PPL_ERF_SMALL
#undef PPL_ALL_INTEGERS
#undef PPL_SPLITTER
#undef PPL_EPS
#undef PPL_MIN_NORMAL
#undef REAL3
#undef PPL_DIGAMMA_ROOT1
#undef PPL_DIGAMMA_ROOT2
#undef PPL_DIGAMMA_ROOT3

// part 0: reduce_sum [1024] (node 278afb076c2a4bf460e79778)
void ppl_part0(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float acc0 = 0.00000000;
  for (int k1 = 0; k1 < 200; k1++) {
    float t2 = b0.v[k1];
    bool t3 = (t2>=0.00000000);
    bool t4 = (t2<=1.00000000);
    bool t5 = (t3&&t4);
    float t6 = (2.00000000*t2);
    float t7 = (t6-1.00000000);
    float t8 = b1.v[(u)*4];
    float t9 = t8;
    float t10 = b2.v[((k1)*1024+u)];
    float t11 = t10;
    float t12 = (t9+t11);
    float t13 = (t7*t12);
    float t14 = ppl_log_sigmoid(t13);
    float t15 = (t5 ? t14 : uintBitsToFloat(0xff800000u));
    acc0 = acc0 + t15;
  }
  b3.v[u] = acc0;
}
// part 1: mul [1024,200] (node 5485f75a3d9af9be494129f3)
void ppl_part1(int gid, uint ppl_lid) {
  if (gid >= 3200) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 204800) return;
  float t0 = b0.v[(u)%200];
  bool t1 = (t0>=0.00000000);
  bool t2 = (t0<=1.00000000);
  bool t3 = (t1&&t2);
  float t4 = (t3 ? 1.00000000 : 0.00000000);
  float t5 = (2.00000000*t0);
  float t6 = (t5-1.00000000);
  float t7 = b1.v[((u)/200)*4];
  float t8 = t7;
  float t9 = b2.v[(((u)%200)*1024+(u)/200)];
  float t10 = t9;
  float t11 = (t8+t10);
  float t12 = (t6*t11);
  float t13 = (-t12);
  float t14 = ppl_sigmoid(t13);
  float t15 = (t4*t14);
  b4.v[u] = (t15*t6);
}
void main() {
  int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (g < 16) { ppl_part0(g, gl_LocalInvocationIndex); return; }
  g -= 16;
  if (g < 3200) { ppl_part1(g, gl_LocalInvocationIndex); return; }
}

// ----
#version 450
// 3 independent kernels in one dispatch, each on its own workgroups:
//   part 0: add [1024] (node 7019cebcc7e7cd64898e9fb7)
//   part 1: matmul [3,1024] (node 17f1d6e6f890cca7915448c9): tiled matmul 4x32x16, 4 k-slices, the last merges them
//   part 2: reduce_sum [1024] (node 36ec56faf387ab2d8e5010c4)
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
layout(std430, set = 0, binding = 4) readonly restrict buffer Buf4 { float v[]; } b4;
layout(std430, set = 0, binding = 5) readonly restrict buffer Buf5 { float v[]; } b5;
layout(std430, set = 0, binding = 6) coherent restrict buffer Buf6 { float v[]; } b6; // scratch: 4 partial products per output
layout(std430, set = 0, binding = 7) coherent restrict buffer Buf7 { int v[]; } b7; // scratch: k-slices of each matmul tile done
layout(std430, set = 0, binding = 8) writeonly restrict buffer Buf8 { float v[]; } b8;
layout(std430, set = 0, binding = 9) writeonly restrict buffer Buf9 { float v[]; } b9;
shared float ppl_As[68];
shared float ppl_Bs[528];
shared int ppl_done;
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// ---- shaders/prelude/philox.glsl
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC'11), bit-exact with Random123 and with packages/ppl/src/random/philox.ts.
// Type-free (32-bit unsigned integers only); included once, before both REAL instantiations.

// Encrypts counter (c.x, c.y, c.z, c.w) under key (k.x, k.y): ten rounds, the key bumped by the
// Weyl constants between rounds (not before the first).
uvec4 ppl_philox4x32(uvec4 c, uvec2 k) {
  for (int round = 0; round < 10; round++) {
    if (round > 0) k += uvec2(0x9E3779B9u, 0xBB67AE85u);
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
  }
  return c;
}

// The keyed stream of packages/ppl/src/random/streams.ts:
//   key = (seed mod 2^32, seed / 2^32), counter = (chain, iteration, purpose | sub << 8, block).
uvec4 ppl_philox_stream(uvec2 seedKey, uint chain, uint iteration, uint purpose, uint sub, uint block) {
  return ppl_philox4x32(uvec4(chain, iteration, purpose | (sub << 8), block), seedKey);
}

// ---- shaders/prelude/real_f32.glsl
// Type header for the f32 instantiation of the prelude (see real_f64.glsl for the scheme).
// Same algorithms as f64, with single-precision thresholds and splits (fdlibm's *f variants).

#define REAL float
#define PPL_SFX(name) name##_f32

#define PPL_LN2_HI 6.9313812256e-01      // 0x3f317180: k*LN2_HI exact for |k| <= 128
#define PPL_LN2_LO 9.0580006145e-06      // 0x3717f7d1
#define PPL_EXP_OVERFLOW 8.8722839355e+01 // 0x42b17218, ~ln(FLT_MAX)
#define PPL_EXP_UNDERFLOW -1.0397208405e+02 // 0xc2cff1b5
#define PPL_EXP_TINY 6.103515625e-05      // 2^-14
#define PPL_EXPM1_SATURATE 1.8714973450e+01 // 27*ln2
#define PPL_EXPM1_TINY 2.98023223876953125e-08 // 2^-25
#define PPL_EXPM1_KSPLIT 23
#define PPL_TANH_SATURATE 9.0
#define PPL_TANH_TINY 2.44140625e-04      // 2^-12
#define PPL_ERF_SMALL 6.103515625e-05     // 2^-14
#define PPL_ALL_INTEGERS 8388608.0        // 2^23
#define PPL_SPLITTER 4097.0               // 2^12 + 1
#define PPL_EPS 5.9604644775390625e-08    // 2^-24, half an ulp of 1: the series' and fractions' stopping test
#define PPL_MIN_NORMAL 1.1754943508e-38   // 2^-126
#define REAL3 vec3                        // a dual number (value and two partial derivatives)
// The positive root of digamma, x0 = 1.46163214496836234126..., as a sum of three floats.
#define PPL_DIGAMMA_ROOT1 1.461632133e+00
#define PPL_DIGAMMA_ROOT2 1.243815007e-08
#define PPL_DIGAMMA_ROOT3 -1.265446444e-16

float ppl_nan_f32() { return uintBitsToFloat(0x7fc00000u); }
float ppl_inf_f32() { return uintBitsToFloat(0x7f800000u); }
#define PPL_NAN ppl_nan_f32()
#define PPL_INF ppl_inf_f32()

bool ppl_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool ppl_isinf(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u; }

// Sign bit, which also tells -0 from +0.
bool ppl_signbit(float x) { return (floatBitsToUint(x) >> 31) != 0u; }

// 2^e for e in [-126, 127].
float ppl_exp2i_f32(int e) { return uintBitsToFloat(uint(e + 127) << 23); }

// y * 2^k for k in [-252, 254] with two exact power-of-two factors (see the f64 version).
float ppl_scale(float y, int k) {
  int k1 = k / 2;
  precise float t = y * ppl_exp2i_f32(k1);
  precise float r = t * ppl_exp2i_f32(k - k1);
  return r;
}

// For finite x > 0: xm in [1, 2), x = xm * 2^k, and the top 20 significand bits (as for f64,
// so that fdlibm's thresholds on the high word apply unchanged).
float ppl_normalize(float x, out int k, out int hx) {
  int k0 = 0;
  uint b = floatBitsToUint(x);
  if (b < 0x00800000u) {  // subnormal (where the device keeps them): scale by 2^25 first
    b = floatBitsToUint(x * 33554432.0);
    k0 = -25;
  }
  k = k0 + int(b >> 23) - 127;
  hx = int((b & 0x007fffffu) >> 3);
  return uintBitsToFloat((b & 0x007fffffu) | 0x3f800000u);
}

// x with the low 13 significand bits cleared (fdlibm's erff and cosf use 0xffffe000): its square
// is exact and, for the arguments of erfc, so is -x^2 - 0.5625.
float ppl_clear_low(float x) { return uintBitsToFloat(floatBitsToUint(x) & 0xffffe000u); }

int ppl_biased_exponent(float x) { return int((floatBitsToUint(x) >> 23) & 0xffu); }

// x = n*pi/2 + y0 (y1 = 0): Cody-Waite with pi/2 split into three 8-bit parts and a float tail,
// so n*part is exact for |n| < 2^16; accurate to ~1 ulp of the result for |x| < 1e5, except
// within ~1e-10 of a multiple of pi/2, where the error stays ~1e-10 absolute.
int ppl_rem_pio2(float x, out float y0, out float y1) {
  y1 = 0.0;
  if (abs(x) <= 7.8539818525e-01) { y0 = x; return 0; }
  float fn = floor(x * 6.366197467e-01 + 0.5);
  precise float r = x - fn * 1.570312500e+00;
  r = r - fn * 4.825592041e-04;
  r = r - fn * 1.266598701e-06;
  r = r - fn * 9.920936295e-10;
  y0 = r;
  return int(fn);
}

// Uniform float in (0, 1) from two Philox words: the f64 uniform of ppl_uniform_f64 (and of
// packages/ppl/src/random/variates.ts) correctly rounded to float, computed with integer
// arithmetic so no double support is needed. The only exception: values that would round to
// 1.0 (probability 2^-25) return the largest float below 1, so that u < 1 always holds.
float ppl_uniform_f32(uint hi, uint lo) {
  // M = 2*(hi >> 12)*2^32 + 2*lo + 1 (53 bits) and u = M * 2^-53; split M as mh*2^32 + ml.
  uint mh = ((hi >> 12) << 1) | (lo >> 31);
  uint ml = (lo << 1) | 1u;
  int msb = mh != 0u ? 32 + findMSB(mh) : findMSB(ml);
  int shift = msb - 23;  // bits to drop to keep a 24-bit significand
  if (shift <= 0) return float(ml) * 1.1102230246251565e-16;  // M < 2^24: exact (ml < 2^24)
  // q = M >> shift, rem = M mod 2^shift, compared with half = 2^(shift-1).
  uint q;
  uint remHi;  // rem >> 32 (only when shift > 32)
  uint remLo;
  if (shift >= 32) {
    q = mh >> (shift - 32);
    remHi = shift == 32 ? 0u : mh & ((1u << (shift - 32)) - 1u);
    remLo = ml;
  } else {
    q = (mh << (32 - shift)) | (ml >> shift);
    remHi = 0u;
    remLo = ml & ((1u << shift) - 1u);
  }
  uint halfHi = shift > 32 ? 1u << (shift - 33) : 0u;
  uint halfLo = shift > 32 ? 0u : 1u << (shift - 1);
  bool above = remHi > halfHi || (remHi == halfHi && remLo > halfLo);
  bool tie = remHi == halfHi && remLo == halfLo;
  if (above || (tie && (q & 1u) == 1u)) q += 1u;
  float u = float(q) * ppl_exp2i_f32(shift - 53);
  return min(u, 0.99999994);
}

// ---- shaders/prelude/double_word.glsl
// Error-free transformations (Dekker 1971, Knuth TAOCP 4.2.2) for double-word arithmetic, used by
// pow and mod. Generic over REAL. Every temporary is `precise`: the compiler must neither fuse
// a*b+c into an fma nor reassociate, or the error terms come out as zero.

// a = hi + lo exactly, each half with at most half the significand bits (Veltkamp splitting).
void ppl_split(REAL a, out REAL hi, out REAL lo) {
  precise REAL c = PPL_SPLITTER * a;
  precise REAL h = c - (c - a);
  precise REAL l = a - h;
  hi = h;
  lo = l;
}

// a * b = p + e exactly (Dekker's product); needs |a|, |b| far from overflow.
void ppl_two_prod(REAL a, REAL b, out REAL p, out REAL e) {
  REAL ah, al, bh, bl;
  ppl_split(a, ah, al);
  ppl_split(b, bh, bl);
  precise REAL pp = a * b;
  precise REAL ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
  p = pp;
  e = ee;
}

// a + b = s + e exactly (Knuth's two-sum, no ordering requirement).
void ppl_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL bb = ss - a;
  precise REAL ee = (a - (ss - bb)) + (b - bb);
  s = ss;
  e = ee;
}

// a + b = s + e exactly when |a| >= |b| or a == 0 (Dekker's fast two-sum).
void ppl_fast_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL ee = b - (ss - a);
  s = ss;
  e = ee;
}

// ---- shaders/prelude/basic.glsl
// Elementwise basics with the CPU backend's semantics (packages/tensor/src/cpu/scalar.ts).
// Generic over REAL (see real_f64.glsl).

REAL ppl_abs(REAL x) { return abs(x); }
REAL ppl_neg(REAL x) { return -x; }
REAL ppl_floor(REAL x) { return floor(x); }
REAL ppl_ceil(REAL x) { return ceil(x); }
REAL ppl_square(REAL x) { return x * x; }
REAL ppl_reciprocal(REAL x) { return 1.0 / x; }

// sign: +1, -1, and x itself for +-0 and NaN (like the CPU, unlike GLSL's sign on NaN).
REAL ppl_sign(REAL x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x); }

// sqrt is correctly rounded for both types in Vulkan (SPIR-V Sqrt on double is exact on
// lavapipe and NVIDIA); rsqrt is 1/sqrt rather than inversesqrt, whose f64 precision is unspecified.
REAL ppl_sqrt(REAL x) { return sqrt(x); }
REAL ppl_rsqrt(REAL x) { return 1.0 / sqrt(x); }

// max/min with the CPU's NaN rule: NaN in either argument gives NaN.
REAL ppl_max(REAL a, REAL b) { return (a >= b || ppl_isnan(a)) ? a : b; }
REAL ppl_min(REAL a, REAL b) { return (a <= b || ppl_isnan(a)) ? a : b; }

// Python-style remainder (sign of the divisor), as the CPU's mod: r = a - trunc(a/b)*b with the
// product formed exactly (Dekker), then one correction step for a rounded-up quotient and the
// shift by b when the signs of r and b differ. Exact while |a/b| < 2^52 (2^23 for f32); for larger
// quotients (huge a, tiny b) the result is inaccurate or NaN: no bitwise long division is done.
REAL ppl_mod(REAL a, REAL b) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isinf(a) || b == 0.0) return PPL_NAN;
  if (ppl_isinf(b)) return (a != 0.0 && (a < 0.0) != (b < 0.0)) ? b : a;
  precise REAL q = trunc(a / b);
  REAL p, e;
  ppl_two_prod(q, b, p, e);
  precise REAL r = (a - p) - e;
  // a/b rounded away from zero past an integer: r has the wrong sign; step q back by one.
  if (r != 0.0 && (r < 0.0) != (a < 0.0)) r = ((a < 0.0) == (b < 0.0)) ? r + b : r - b;
  if (r != 0.0 && (r < 0.0) != (b < 0.0)) r += b;
  return r;
}

REAL ppl_nan(REAL like) { return PPL_NAN; }
REAL ppl_inf(REAL like) { return PPL_INF; }

// ---- shaders/prelude/exp.glsl
// exp(x): fdlibm e_exp.c (as in V8, so f64 results match JS Math.exp), error < 1 ulp.
// Method: x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 = LN2_HI + LN2_LO, k*LN2_HI exact);
// exp(r) = 1 + 2r/(2 - R(r)) with R a degree-10 minimax polynomial in r (5 terms in r^2);
// then scale by 2^k. Generic over REAL; temporaries are `precise` because the formulas rely on
// the exact order of IEEE operations.

// 1 - ((lo - r*c/(2-c)) - hi) scaled by 2^k, for r = hi - lo.
REAL ppl_exp_kernel(REAL hi, REAL lo, int k) {
  precise REAL r = hi - lo;
  precise REAL t = r * r;
  precise REAL c = r - t * (1.66666666666666019037e-01 + t * (-2.77777777770155933842e-03
      + t * (6.61375632143793436117e-05 + t * (-1.65339022054652515390e-06
      + t * 4.13813679705723846039e-08))));
  precise REAL y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  return ppl_scale(y, k);
}

// exp(xh + xl) for a double-word argument (|xl| <= ulp(xh)): the tail joins the reduced argument.
REAL ppl_exp_dw(REAL xh, REAL xl) {
  if (ppl_isnan(xh)) return xh;
  if (xh > PPL_EXP_OVERFLOW) return PPL_INF;
  if (xh < PPL_EXP_UNDERFLOW) return 0.0;
  int k = int(1.44269504088896338700e+00 * xh + (xh < 0.0 ? -0.5 : 0.5));
  REAL fk = REAL(k);
  precise REAL hi = xh - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO - xl;
  return ppl_exp_kernel(hi, lo, k);
}

REAL ppl_exp(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  if (x < PPL_EXP_UNDERFLOW) return 0.0;
  REAL ax = abs(x);
  if (ax < PPL_EXP_TINY) return 1.0 + x;
  // |x| <= ln2/2 takes k = 0, so hi = x and lo = 0 and the kernel computes fdlibm's k = 0 formula
  // 1 - ((x*c)/(c - 2) - x) to the bit (0 - q = -q, and (x*c)/(2 - c) is that quotient negated).
  // A select instead of a separate path: a subgroup whose lanes straddle ln2/2 runs one path, not both.
  int k = ax <= 3.46573590279972654709e-01 ? 0 : int(1.44269504088896338700e+00 * x + (x < 0.0 ? -0.5 : 0.5));
  REAL fk = REAL(k);
  precise REAL hi = x - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO;
  return ppl_exp_kernel(hi, lo, k);
}

// ---- shaders/prelude/log.glsl
// log(x) and log1p(x): fdlibm e_log.c and s_log1p.c (as in V8, so f64 log matches JS Math.log),
// error < 1 ulp. Method: x = 2^k * (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2));
// log(1 + f) = f - f^2/2 + s*(f^2/2 + R(z)) with s = f/(2 + f), z = s^2 and R a degree-14
// minimax polynomial (the atanh series 2s + 2s^3/3 + ... rearranged); k*ln2 added in two parts.
// log1p additionally carries the rounding error of 1 + x as a correction c/u.
// Generic over REAL; temporaries are `precise` (exact operation order matters).

REAL ppl_log(REAL x) {
  if (ppl_isnan(x) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  int k;
  int hx;
  REAL m = ppl_normalize(x, k, hx);  // x = m * 2^k, m in [1, 2); hx = top 20 bits of m - 1
  // fdlibm: (hx + 0x95f64) & 0x100000 is set when m >= ~sqrt(2); then use m/2 and k + 1.
  int i = (hx + 0x95f64) & 0x100000;
  if (i != 0) {
    m *= 0.5;
    k += 1;
  }
  precise REAL f = m - 1.0;
  REAL dk = REAL(k);
  if ((0x000fffff & (2 + hx)) < 3) {  // -2^-20 <= f < 2^-20
    if (f == 0.0) {
      if (k == 0) return 0.0;
      precise REAL res0 = dk * PPL_LN2_HI + dk * PPL_LN2_LO;
      return res0;
    }
    precise REAL r0 = f * f * (0.5 - 0.33333333333333333 * f);
    precise REAL res1 = (k == 0) ? f - r0 : dk * PPL_LN2_HI - ((r0 - dk * PPL_LN2_LO) - f);
    return res1;
  }
  precise REAL s = f / (2.0 + f);
  precise REAL z = s * s;
  int i2 = hx - 0x6147a;
  precise REAL w = z * z;
  int j = 0x6b851 - hx;
  precise REAL t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01
      + w * 1.531383769920937332e-01));
  precise REAL t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01
      + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  i2 |= j;
  precise REAL r = t2 + t1;
  precise REAL res;
  if (i2 > 0) {
    precise REAL hfsq = 0.5 * f * f;
    if (k == 0) res = f - (hfsq - s * (hfsq + r));
    else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + dk * PPL_LN2_LO)) - f);
  } else {
    if (k == 0) res = f - s * (f - r);
    else res = dk * PPL_LN2_HI - ((s * (f - r) - dk * PPL_LN2_LO) - f);
  }
  return res;
}

REAL ppl_log1p(REAL x) {
  if (ppl_isnan(x) || x < -1.0) return PPL_NAN;
  if (x == -1.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  REAL ax = abs(x);
  if (ax < 1.862645149230957e-09) {  // |x| < 2^-29: x - x^2/2 is exact to rounding
    precise REAL t = x - x * x * 0.5;
    return (ax < 5.551115123125783e-17) ? x : t;
  }
  int k = 1;
  precise REAL f;
  precise REAL c = 0.0;
  int hu = 1;
  if (x < 4.142135623730950488017e-01 && x > -2.928932188134524755992e-01) {
    // 1 + x in (sqrt(2)/2, sqrt(2)): no reduction, f = x exactly.
    k = 0;
    f = x;
  } else {
    precise REAL u = 1.0 + x;
    if (x < PPL_ALL_INTEGERS) {
      // c = (1 + x) - u, the rounding error of u, relative to u.
      c = (u >= 2.0) ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    }
    int hx;
    REAL m = ppl_normalize(u, k, hx);
    // As in log: switch to [sqrt(2)/2, 1) when m >= ~sqrt(2) (fdlibm's 0x6a09e threshold).
    hu = hx;
    if (hx >= 0x6a09e) {
      m *= 0.5;
      k += 1;
      hu = (0x100000 - hx) >> 2;  // zero when m is within 2^-20 of 2, i.e. |f| < 2^-20
    }
    f = m - 1.0;
  }
  REAL dk = REAL(k);
  precise REAL hfsq = 0.5 * f * f;
  if (hu == 0) {  // |f| < 2^-20 (only reachable with k != 0)
    if (f == 0.0) {
      precise REAL res0 = dk * PPL_LN2_HI + (c + dk * PPL_LN2_LO);
      return res0;
    }
    precise REAL r0 = hfsq * (1.0 - 0.66666666666666666 * f);
    precise REAL res1 = dk * PPL_LN2_HI - ((r0 - (dk * PPL_LN2_LO + c)) - f);
    return res1;
  }
  precise REAL s = f / (2.0 + f);
  precise REAL z = s * s;
  precise REAL r = z * (6.666666666666735130e-01 + z * (3.999999999940941908e-01
      + z * (2.857142874366239149e-01 + z * (2.222219843214978396e-01
      + z * (1.818357216161805012e-01 + z * (1.531383769920937332e-01
      + z * 1.479819860511658591e-01))))));
  precise REAL res;
  if (k == 0) res = f - (hfsq - s * (hfsq + r));
  else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * PPL_LN2_LO + c))) - f);
  return res;
}

// ---- shaders/prelude/expm1.glsl
// expm1(x) = exp(x) - 1 without cancellation near 0: fdlibm s_expm1.c, error < 1 ulp.
// Method: x = k*ln2 + r (Cody-Waite, with the rounding error of r kept in c); on |r| <= ln2/2
// expm1(r) = r + r^2/2 + r^3/2 * (3 - (R1 + R1*r/2))/(6 - r*(3 - R1*r/2)) with a rational
// approximation R1 in r^2 (5 terms); then 2^k*(expm1(r) - c + 1) - 1, rearranged per range of k
// to stay exact. Generic over REAL.

REAL ppl_expm1(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x == 0.0) return x;  // keeps -0
  REAL ax = abs(x);
  if (ax >= PPL_EXPM1_SATURATE) {
    if (x < 0.0) return -1.0;
    if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  }
  int k = 0;
  precise REAL c = 0.0;
  precise REAL xr = x;
  if (ax > 3.46573590279972654709e-01) {  // |x| > ln2/2: reduce
    precise REAL hi;
    precise REAL lo;
    if (ax < 1.03972077083991796413e+00) {  // |x| < 1.5*ln2: k = +-1
      if (x > 0.0) { hi = x - PPL_LN2_HI; lo = PPL_LN2_LO; k = 1; }
      else { hi = x + PPL_LN2_HI; lo = -PPL_LN2_LO; k = -1; }
    } else {
      k = int(1.44269504088896338700e+00 * x + (x < 0.0 ? -0.5 : 0.5));
      REAL t = REAL(k);
      hi = x - t * PPL_LN2_HI;  // exact
      lo = t * PPL_LN2_LO;
    }
    xr = hi - lo;
    c = (hi - xr) - lo;
  } else if (ax < PPL_EXPM1_TINY) {
    return x;
  }
  precise REAL hfx = 0.5 * xr;
  precise REAL hxs = xr * hfx;
  precise REAL r1 = 1.0 + hxs * (-3.33333333333331316428e-02 + hxs * (1.58730158725481460165e-03
      + hxs * (-7.93650757867487942473e-05 + hxs * (4.00821782732936239552e-06
      + hxs * -2.01099218183624371326e-07))));
  precise REAL t = 3.0 - r1 * hfx;
  precise REAL e = hxs * ((r1 - t) / (6.0 - xr * t));
  if (k == 0) {
    precise REAL y0 = xr - (xr * e - hxs);  // c is 0
    return y0;
  }
  e = (xr * (e - c) - c);
  e -= hxs;
  if (k == -1) {
    precise REAL ym = 0.5 * (xr - e) - 0.5;
    return ym;
  }
  if (k == 1) {
    precise REAL yp = (xr < -0.25) ? -2.0 * (e - (xr + 0.5)) : 1.0 + 2.0 * (xr - e);
    return yp;
  }
  if (k <= -2 || k > 56) {  // exp(x) - 1 directly: the -1 is negligible or the result is ~-1
    precise REAL y = 1.0 - (e - xr);
    y = ppl_scale(y, k);
    precise REAL y1 = y - 1.0;
    return y1;
  }
  precise REAL y;
  if (k < PPL_EXPM1_KSPLIT) {
    precise REAL u = 1.0 - ppl_scale(1.0, -k);  // 1 - 2^-k, exact
    y = u - (e - xr);
  } else {
    precise REAL u = ppl_scale(1.0, -k);  // 2^-k
    y = xr - (e + u);
    y += 1.0;
  }
  precise REAL y2 = ppl_scale(y, k);
  return y2;
}

// ---- shaders/prelude/trig.glsl
// sin, cos, and sin(pi x), cos(pi x): fdlibm s_sin.c / s_cos.c with the kernels k_sin.c, k_cos.c
// (as in V8, so f64 results match JS Math.sin/Math.cos where the reduction is exact), error < 1 ulp.
// Range reduction is ppl_rem_pio2 (per type, in real_f32.glsl / real_f64.glsl): Cody-Waite
// with a 3-part pi/2 for f64, exact for |x| < ~8e5; the f32 one is accurate for |x| < 1e5.
// The kernels take the reduced argument as a double-word y0 + y1. Generic over REAL.

// sin(x + y) on |x| <= pi/4, y the tail of x; iy = 0 means y is known to be 0.
REAL ppl_kernel_sin(REAL x, REAL y, int iy) {
  if (abs(x) < 7.450580596923828125e-09) return x;  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL v = z * x;
  precise REAL r = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04
      + z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08
      + z * 1.58969099521155010221e-10)));
  precise REAL res;
  if (iy == 0) res = x + v * (-1.66666666666666324348e-01 + z * r);
  else res = x - ((z * (0.5 * y - v * r) - y) - v * -1.66666666666666324348e-01);
  return res;
}

// cos(x + y) on |x| <= pi/4. For |x| >= 0.3, 1 - qx and x^2/2 - qx are exact (qx ~ x/4 with its
// low bits cleared), which keeps the subtraction accurate.
REAL ppl_kernel_cos(REAL x, REAL y) {
  REAL ax = abs(x);
  if (ax < 7.450580596923828125e-09) return 1.0;  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL r = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03
      + z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07
      + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
  precise REAL res;
  if (ax < 0.3) {
    res = 1.0 - (0.5 * z - (z * r - x * y));
  } else {
    REAL qx = (ax > 0.78125) ? 0.28125 : ppl_clear_low(ax * 0.25);
    precise REAL hz = 0.5 * z - qx;
    precise REAL a = 1.0 - qx;
    res = a - (hz - (z * r - x * y));
  }
  return res;
}

REAL ppl_sin(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  if (abs(x) <= 7.85398163397448278999e-01) return ppl_kernel_sin(x, 0.0, 0);
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
  if (abs(x) <= 7.85398163397448278999e-01) return ppl_kernel_cos(x, 0.0);
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
  const REAL PI = 3.141592653589793116;
  precise REAL r = x - 2.0 * trunc(x * 0.5);  // x mod 2 with the sign of x, exact
  REAL ar = abs(r);
  REAL sg = r < 0.0 ? -1.0 : 1.0;
  if (ar == 0.0 || ar == 1.0) return sg * 0.0;
  if (ar < 0.25) return ppl_sin(PI * r);
  if (ar < 0.75) return sg * ppl_cos(PI * (0.5 - ar));
  if (ar < 1.25) return ppl_sin(PI * (sg - r));
  if (ar < 1.75) return -sg * ppl_cos(PI * (ar - 1.5));
  return ppl_sin(PI * (r - 2.0 * sg));
}

// cos(pi*x), exactly zero at half-integers.
REAL ppl_cospi(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  const REAL PI = 3.141592653589793116;
  REAL ar = abs(x - 2.0 * trunc(x * 0.5));  // |x| mod 2, exact
  if (ar == 0.5 || ar == 1.5) return 0.0;
  if (ar < 0.25) return ppl_cos(PI * ar);
  if (ar < 0.75) return ppl_sin(PI * (0.5 - ar));
  if (ar < 1.25) return -ppl_cos(PI * (1.0 - ar));
  if (ar < 1.75) return ppl_sin(PI * (ar - 1.5));
  return ppl_cos(PI * (2.0 - ar));
}

// ---- shaders/prelude/tanh.glsl
// tanh(x): fdlibm s_tanh.c, error < ~2 ulp. Built on expm1 so that small |x| keeps full relative
// accuracy: for |x| >= 1, tanh = 1 - 2/(expm1(2|x|) + 2); for |x| < 1, -t/(t + 2) with
// t = expm1(-2|x|); |x| >= 22 (9 for f32) is +-1 to working precision. Generic over REAL.

REAL ppl_tanh(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL z;
  if (ax >= PPL_TANH_SATURATE) {
    z = 1.0;
  } else if (ax < PPL_TANH_TINY) {
    return x;
  } else if (ax >= 1.0) {
    REAL t = ppl_expm1(2.0 * ax);
    z = 1.0 - 2.0 / (t + 2.0);
  } else {
    REAL t = ppl_expm1(-2.0 * ax);
    z = -t / (t + 2.0);
  }
  return x < 0.0 ? -z : z;
}

// ---- shaders/prelude/logistic.glsl
// sigmoid, softplus and log_sigmoid, written exactly as the CPU backend's formulas
// (packages/tensor/src/cpu/scalar.ts) so that both backends round the same way.
// Generic over REAL.

// 1/(1 + exp(-x)) without overflow: for x < 0 use e/(1 + e) with e = exp(x) <= 1. Both cases
// take e = exp(-|x|) (that is exp(-x) for x >= 0 and exp(x) below), so that a subgroup with
// lanes of both signs evaluates one exp, not one in each branch.
REAL ppl_sigmoid(REAL x) {
  REAL e = ppl_exp(-abs(x));
  return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);  // NaN: e is NaN, and so is the result
}

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for x > 0, log1p(exp(x)) otherwise; as
// in ppl_sigmoid, both are log1p(exp(-|x|)), computed once.
REAL ppl_softplus(REAL x) {
  REAL l = ppl_log1p(ppl_exp(-abs(x)));
  return x > 0.0 ? x + l : l;
}

// log(sigmoid(x)) = -softplus(-x).
REAL ppl_log_sigmoid(REAL x) { return -ppl_softplus(-x); }

// ---- shaders/prelude/atan2.glsl
// atan(x) and atan2(y, x): fdlibm s_atan.c and e_atan2.c, error < 1 ulp.
// atan: reduce |x| to [0, 7/16] with atan(x) = atan(c) + atan((x - c)/(1 + c x)) for
// c in {1/2, 1, 3/2, inf}, the table values atan(c) kept in two parts; odd minimax polynomial
// of degree 23. atan2 handles signs, zeros and infinities as C99/IEEE (= JS Math.atan2).
// Generic over REAL.

REAL ppl_atan(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax >= 7.378697629483820646e+19) {  // |x| >= 2^66: +-pi/2
    precise REAL h = 1.57079632679489655800e+00 + 6.12323399573676603587e-17;
    return x > 0.0 ? h : -h;
  }
  int id;
  precise REAL t;
  if (ax < 0.4375) {
    if (ax < 7.450580596923828125e-09) return x;  // |x| < 2^-27
    id = -1;
    t = x;
  } else if (ax < 0.6875) {
    id = 0;
    t = (2.0 * ax - 1.0) / (2.0 + ax);
  } else if (ax < 1.1875) {
    id = 1;
    t = (ax - 1.0) / (ax + 1.0);
  } else if (ax < 2.4375) {
    id = 2;
    t = (ax - 1.5) / (1.0 + 1.5 * ax);
  } else {
    id = 3;
    t = -1.0 / ax;
  }
  precise REAL z = t * t;
  precise REAL w = z * z;
  // Odd and even halves of sum_{i=0..10} aT[i] z^(i+1), as fdlibm splits them.
  precise REAL s1 = z * (3.33333333333329318027e-01 + w * (1.42857142725034663711e-01
      + w * (9.09088713343650656196e-02 + w * (6.66107313738753120669e-02
      + w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))));
  precise REAL s2 = w * (-1.99999999998764832476e-01 + w * (-1.11111104054623557880e-01
      + w * (-7.69187620504482999495e-02 + w * (-5.83357013379057348645e-02
      + w * -3.65315727442169155270e-02))));
  if (id < 0) {
    precise REAL r0 = t - t * (s1 + s2);
    return r0;
  }
  REAL hi = id == 0 ? 4.63647609000806093515e-01 : id == 1 ? 7.85398163397448278999e-01
          : id == 2 ? 9.82793723247329054082e-01 : 1.57079632679489655800e+00;
  REAL lo = id == 0 ? 2.26987774529616870924e-17 : id == 1 ? 3.06161699786838301793e-17
          : id == 2 ? 1.39033110312309984516e-17 : 6.12323399573676603587e-17;
  precise REAL r = hi - ((t * (s1 + s2) - lo) - t);
  return x < 0.0 ? -r : r;
}

REAL ppl_atan2(REAL y, REAL x) {
  const REAL PI = 3.14159265358979311600e+00;
  const REAL PI_LO = 1.22464679914735317720e-16;
  const REAL PIO2 = 1.57079632679489655800e+00;
  const REAL PIO4 = 7.85398163397448278999e-01;
  if (ppl_isnan(x) || ppl_isnan(y)) return PPL_NAN;
  // Sign bits, so that -0 counts as negative (atan2(+0, -0) = pi, atan2(-0, +0) = -0).
  bool yneg = ppl_signbit(y);
  bool xneg = ppl_signbit(x);
  if (y == 0.0) return xneg ? (yneg ? -PI : PI) : y;
  if (x == 0.0) return yneg ? -PIO2 : PIO2;
  if (ppl_isinf(x)) {
    if (ppl_isinf(y)) {
      REAL a = xneg ? 3.0 * PIO4 : PIO4;
      return yneg ? -a : a;
    }
    REAL b = xneg ? PI : 0.0;
    return yneg ? -b : b;
  }
  if (ppl_isinf(y)) return yneg ? -PIO2 : PIO2;
  REAL q = abs(y / x);
  REAL z = ppl_atan(q);  // |y/x| overflowing to inf gives pi/2, underflowing to 0 gives 0
  precise REAL res;
  if (!xneg) res = z;
  else res = PI - (z - PI_LO);
  return yneg ? -res : res;
}

// ---- shaders/prelude/pow.glsl
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
    m *= 0.5;
    k += 1;
  }
  precise REAL f = m - 1.0;  // exact
  REAL dh, dl;
  ppl_fast_two_sum(2.0, f, dh, dl);  // 2 + f = dh + dl exactly
  precise REAL sh = f / dh;
  REAL ph, pl;
  ppl_two_prod(sh, dh, ph, pl);
  precise REAL sl = (((f - ph) - pl) - sh * dl) / dh;  // s - sh, from the exact residual
  precise REAL z = sh * sh;
  precise REAL tail = 2.0 * sh * z * (0.33333333333333333333 + z * (0.2 + z * (0.14285714285714285714
      + z * (0.11111111111111111111 + z * (0.09090909090909090909 + z * (0.07692307692307692308
      + z * (0.06666666666666666667 + z * (0.05882352941176470588 + z * (0.05263157894736842105
      + z * (0.04761904761904761905 + z * (0.04347826086956521739 + z * 0.04)))))))))));
  REAL ah, al;
  ppl_fast_two_sum(2.0 * sh, 2.0 * sl + tail, ah, al);
  REAL dk = REAL(k);
  REAL bh, bl;
  ppl_two_sum(dk * PPL_LN2_HI, ah, bh, bl);  // dk * LN2_HI is exact
  precise REAL lo = bl + (al + dk * PPL_LN2_LO);
  ppl_fast_two_sum(bh, lo, lh, ll);
}

REAL ppl_pow(REAL x, REAL y) {
  if (ppl_isnan(y)) return PPL_NAN;
  if (y == 0.0) return 1.0;
  if (ppl_isnan(x)) return PPL_NAN;
  REAL ax = abs(x);
  if (ppl_isinf(y)) {
    if (ax == 1.0) return PPL_NAN;
    return ((ax > 1.0) == (y > 0.0)) ? PPL_INF : 0.0;
  }
  bool yint = floor(y) == y;
  bool yodd = yint && floor(y * 0.5) != y * 0.5;  // |y| >= 2^53 (2^24) is always even
  if (x == 0.0) {  // +-0: the sign survives only for odd integer y
    if (y > 0.0) return yodd ? x : 0.0;
    return (yodd && ppl_signbit(x)) ? -PPL_INF : PPL_INF;
  }
  if (ppl_isinf(x)) {
    if (x > 0.0) return y > 0.0 ? PPL_INF : 0.0;
    if (y > 0.0) return yodd ? -PPL_INF : PPL_INF;
    return yodd ? 1.0 / x : 0.0;  // -0 or +0
  }
  REAL sgn = 1.0;
  if (x < 0.0) {
    if (!yint) return PPL_NAN;
    if (yodd) sgn = -1.0;
  }
  if (ax == 1.0) return sgn;
  REAL lh, ll;
  ppl_log_dw(ax, lh, ll);
  REAL w0 = y * lh;
  // Far outside the exp range: decide before forming the exact product (which could overflow).
  if (w0 > 2.0 * PPL_EXP_OVERFLOW) return sgn * PPL_INF;
  if (w0 < 2.0 * PPL_EXP_UNDERFLOW) return sgn * 0.0;
  REAL wh, wl;
  ppl_two_prod(y, lh, wh, wl);
  precise REAL wlo = wl + y * ll;
  REAL eh, el;
  ppl_fast_two_sum(wh, wlo, eh, el);
  return sgn * ppl_exp_dw(eh, el);
}

// ---- shaders/prelude/erf.glsl
// erf and erfc: fdlibm s_erf.c (the scheme of W. J. Cody's rational approximations, as ported by
// stdlib, the CPU reference), error < 1 ulp; erfc keeps full relative accuracy in the right tail
// up to its underflow at x ~ 27 (f64). Intervals:
//   |x| < 0.84375:        erf = x + x*P(x^2)/Q(x^2)
//   0.84375 <= |x| < 1.25: erf = erx + P(s)/Q(s), s = |x| - 1
//   1.25 <= |x| < 28:      erfc = exp(-z^2 - 0.5625) * exp((z - x)(z + x) + R(1/x^2)/S(1/x^2)) / x,
//                          z = x with its low bits cleared so that z^2 is exact.
// Generic over REAL.

REAL ppl_erf_pp(REAL z) {
  return 1.28379167095512558561e-01 + z * (-0.3250421072470015 + z * (-0.02848174957559851
      + z * (-0.005770270296489442 + z * -0.000023763016656650163)));
}
REAL ppl_erf_qq(REAL z) {
  return 1.0 + z * (0.39791722395915535 + z * (0.0650222499887673 + z * (0.005081306281875766
      + z * (0.00013249473800432164 + z * -0.000003960228278775368))));
}
REAL ppl_erf_pa(REAL s) {
  return -2.36211856075265944077e-03 + s * (0.41485611868374833 + s * (-0.3722078760357013
      + s * (0.31834661990116175 + s * (-0.11089469428239668 + s * (0.035478304325618236
      + s * -0.002166375594868791)))));
}
REAL ppl_erf_qa(REAL s) {
  return 1.0 + s * (0.10642088040084423 + s * (0.540397917702171 + s * (0.07182865441419627
      + s * (0.12617121980876164 + s * (0.01363708391202905 + s * 0.011984499846799107)))));
}

// exp(-x^2 - 0.5625 + R/S) / x for 1.25 <= x < 28: the common tail of erf and erfc.
REAL ppl_erfc_tail(REAL ax) {
  REAL s = 1.0 / (ax * ax);
  REAL r;
  REAL q;
  if (ax < 2.857142857142857) {  // 1/0.35
    r = -9.86494403484714822705e-03 + s * (-0.6938585727071818 + s * (-10.558626225323291
        + s * (-62.375332450326006 + s * (-162.39666946257347 + s * (-184.60509290671104
        + s * (-81.2874355063066 + s * -9.814329344169145))))));
    q = 1.0 + s * (19.651271667439257 + s * (137.65775414351904 + s * (434.56587747522923
        + s * (645.3872717332679 + s * (429.00814002756783 + s * (108.63500554177944
        + s * (6.570249770319282 + s * -0.0604244152148581)))))));
  } else {
    r = -9.86494292470009928597e-03 + s * (-0.799283237680523 + s * (-17.757954917754752
        + s * (-160.63638485582192 + s * (-637.5664433683896 + s * (-1025.0951316110772
        + s * -483.5191916086514)))));
    q = 1.0 + s * (30.33806074348246 + s * (325.7925129965739 + s * (1536.729586084437
        + s * (3199.8582195085955 + s * (2553.0504064331644 + s * (474.52854120695537
        + s * -22.44095244658582))))));
  }
  REAL z = ppl_clear_low(ax);
  precise REAL d = (z - ax) * (z + ax);
  return ppl_exp(-z * z - 0.5625) * ppl_exp(d + r / q) / ax;
}

REAL ppl_erf(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL sg = x < 0.0 ? -1.0 : 1.0;
  if (ax < 0.84375) {
    if (ax < PPL_ERF_SMALL) return x + 1.28379167095512586316e-01 * x;
    REAL z = x * x;
    return x + x * (ppl_erf_pp(z) / ppl_erf_qq(z));
  }
  if (ax < 1.25) {
    REAL s = ax - 1.0;
    return sg * (8.45062911510467529297e-01 + ppl_erf_pa(s) / ppl_erf_qa(s));
  }
  if (ax >= 6.0) return sg;
  return sg * (1.0 - ppl_erfc_tail(ax));
}

REAL ppl_erfc(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax < 0.84375) {
    if (ax < 1.3877787807814457e-17) return 1.0 - x;  // |x| < 2^-56
    REAL z = x * x;
    REAL y = ppl_erf_pp(z) / ppl_erf_qq(z);
    if (x < 0.25) return 1.0 - (x + x * y);
    return 0.5 - (x * y + (x - 0.5));
  }
  if (ax < 1.25) {
    REAL s = ax - 1.0;
    REAL pq = ppl_erf_pa(s) / ppl_erf_qa(s);
    return x < 0.0 ? 1.0 + 8.45062911510467529297e-01 + pq
                      : 1.0 - 8.45062911510467529297e-01 - pq;
  }
  if (ax < 28.0) {
    if (x < -6.0) return 2.0;
    REAL t = ppl_erfc_tail(ax);
    return x < 0.0 ? 2.0 - t : t;
  }
  return x < 0.0 ? 2.0 : 0.0;
}

// ---- shaders/prelude/lgamma.glsl
// lgamma(x) = log|Gamma(x)|: fdlibm e_lgamma_r.c (as ported by stdlib's gammaln, the CPU
// reference), error < ~1 ulp away from the zeros at 1 and 2 and small absolute error near them.
// Intervals: [0, 2) by minimax approximations around 1, 2 and the minimum 1.4616 (so the
// zeros at 1 and 2 come out with full relative accuracy); [2, 8) by a rational approximation
// of lgamma(2 + f) and the recurrence; [8, 2^56) by Stirling's series; negative non-integers
// by the reflection lgamma(-x) = log(pi / |x sin(pi x)|) - lgamma(x) (sin(pi x) from ppl_sinpi).
// Poles (0 and negative integers) give +inf; +-inf give +-inf (as the CPU). Generic over REAL.

REAL ppl_lgamma(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return x;  // lgamma(-inf) = -inf, as the CPU reference
  if (x == 0.0) return PPL_INF;
  bool neg = x < 0.0;
  REAL ax = abs(x);
  if (ax < 1.3877787807814457e-17) return -ppl_log(ax);  // |x| < 2^-56
  REAL nadj = 0.0;
  if (neg) {
    if (ax >= PPL_ALL_INTEGERS) return PPL_INF;
    REAL t = ppl_sinpi(ax);
    if (t == 0.0) return PPL_INF;
    nadj = ppl_log(3.14159265358979311600e+00 / abs(t * ax));
  }
  if (ax == 1.0 || ax == 2.0) return neg ? nadj : 0.0;
  REAL r;
  const REAL YMIN = 1.461632144968362245;
  const REAL TC = 1.46163214496836224576e+00;
  if (ax < 2.0) {
    REAL y;
    int flg;
    if (ax <= 0.9) {
      r = -ppl_log(ax);
      if (ax >= YMIN - 1.0 + 0.27) { y = 1.0 - ax; flg = 0; }
      else if (ax >= YMIN - 1.0 - 0.27) { y = ax - (TC - 1.0); flg = 1; }
      else { y = ax; flg = 2; }
    } else {
      r = 0.0;
      if (ax >= YMIN + 0.27) { y = 2.0 - ax; flg = 0; }
      else if (ax >= YMIN - 0.27) { y = ax - TC; flg = 1; }
      else { y = ax - 1.0; flg = 2; }
    }
    if (flg == 0) {
      REAL z = y * y;
      REAL p1 = 7.72156649015328655494e-02 + z * (0.06735230105312927 + z * (0.007385550860814029
          + z * (0.0011927076318336207 + z * (0.00022086279071390839 + z * 0.000025214456545125733))));
      REAL p2 = z * (3.22467033424113591611e-01 + z * (0.020580808432516733 + z * (0.0028905138367341563
          + z * (0.0005100697921535113 + z * (0.00010801156724758394 + z * 0.000044864094961891516)))));
      REAL p = y * p1 + p2;
      r += p - 0.5 * y;
    } else if (flg == 1) {
      REAL z = y * y;
      REAL w = z * y;
      REAL p1 = 4.83836122723810047042e-01 + w * (-0.032788541075985965 + w * (0.006100538702462913
          + w * (-0.0014034646998923284 + w * 0.00031563207090362595)));
      REAL p2 = -1.47587722994593911752e-01 + w * (0.01797067508118204 + w * (-0.0036845201678113826
          + w * (0.000881081882437654 + w * -0.00031275416837512086)));
      REAL p3 = 6.46249402391333854778e-02 + w * (-0.010314224129834144 + w * (0.0022596478090061247
          + w * (-0.0005385953053567405 + w * 0.0003355291926355191)));
      REAL p = z * p1 - (-3.63867699703950536541e-18 - w * (p2 + y * p3));
      r += -1.21486290535849611461e-01 + p;
    } else {
      REAL p1 = y * (-7.72156649015328655494e-02 + y * (0.6328270640250934 + y * (1.4549225013723477
          + y * (0.9777175279633727 + y * (0.22896372806469245 + y * 0.013381091853678766)))));
      REAL p2 = 1.0 + y * (2.4559779371304113 + y * (2.128489763798934 + y * (0.7692851504566728
          + y * (0.10422264559336913 + y * 0.003217092422824239))));
      r += -0.5 * y + p1 / p2;
    }
  } else if (ax < 8.0) {
    int i = int(ax);
    REAL y = ax - REAL(i);
    REAL p = y * (-7.72156649015328655494e-02 + y * (0.21498241596060885 + y * (0.325778796408931
        + y * (0.14635047265246445 + y * (0.02664227030336386 + y * (0.0018402845140733772
        + y * 0.00003194753265841009))))));
    REAL q = 1.0 + y * (1.3920053346762105 + y * (0.7219355475671381 + y * (0.17193386563280308
        + y * (0.01864591917156529 + y * (0.0007779424963818936 + y * 0.000007326684307446256)))));
    r = 0.5 * y + p / q;
    REAL z = 1.0;  // lgamma(1 + s) = log(s) + lgamma(s)
    if (i >= 7) z *= y + 6.0;
    if (i >= 6) z *= y + 5.0;
    if (i >= 5) z *= y + 4.0;
    if (i >= 4) z *= y + 3.0;
    if (i >= 3) {
      z *= y + 2.0;
      r += ppl_log(z);
    }
  } else if (ax < 72057594037927936.0) {  // 2^56
    REAL t = ppl_log(ax);
    REAL z = 1.0 / ax;
    REAL y = z * z;
    REAL w = 4.18938533204672725052e-01 + z * (0.08333333333333297 + y * (-0.0027777777772877554
        + y * (0.0007936505586430196 + y * (-0.00059518755745034 + y * (0.0008363399189962821
        + y * -0.0016309293409657527)))));
    r = (ax - 0.5) * (t - 1.0) + w;
  } else {
    r = ax * (ppl_log(ax) - 1.0);
  }
  return neg ? nadj - r : r;
}

// ---- shaders/prelude/digamma.glsl
// digamma(x) = psi(x) = d/dx lgamma(x): the Boost scheme ported by stdlib (the CPU reference).
//   x >= 10:      psi(x) = log(x-1) + 1/(2(x-1)) - sum_k B_2k/(2k (x-1)^2k)  (asymptotic series)
//   1 <= x <= 2:  psi(x) = (x - x0) * (Y + P(x-1)/Q(x-1)), x0 = 1.46163... the positive root
//                 (x0 carried in three parts), so psi keeps full relative accuracy at its root;
//   other x > -1: the recurrence psi(x+1) = psi(x) + 1/x down or up into [1, 2];
//   x <= -1:      reflection psi(1-x) - psi(x) = pi cot(pi x) (computed as pi cospi/sinpi).
// Poles (0 and negative integers) give NaN, as the CPU reference. Generic over REAL.

REAL ppl_digamma_rational(REAL t) {
  // P/Q evaluated in t or, for |t| > 1, in 1/t (stdlib's evalrational); here t = x - 1 in [0, 1].
  REAL s1 = 0.25479851061131553 + t * (-0.3255503118680449 + t * (-0.6503185377089651
      + t * (-0.28919126444774784 + t * (-0.04525132144873906 + t * -0.002071332116774595))));
  REAL s2 = 1.0 + t * (2.076711702373047 + t * (1.4606242909763516 + t * (0.43593529692665967
      + t * (0.054151797245674226 + t * (0.0021284987017821146 + t * -5.578984132167551e-7)))));
  return s1 / s2;
}

REAL ppl_digamma(REAL x) {
  if (ppl_isnan(x) || x == 0.0) return PPL_NAN;
  if (ppl_isinf(x)) return x > 0.0 ? x : PPL_NAN;
  REAL tmp = 0.0;
  if (x <= -1.0) {
    x = 1.0 - x;
    REAL rem = x - floor(x);
    if (rem > 0.5) rem -= 1.0;
    if (rem == 0.0) return PPL_NAN;
    tmp = 3.14159265358979311600e+00 * ppl_cospi(rem) / ppl_sinpi(rem);
  }
  if (x >= 10.0) {
    REAL xm = x - 1.0;
    REAL z = 1.0 / (xm * xm);
    REAL p = 0.08333333333333333 + z * (-0.008333333333333333 + z * (0.003968253968253968
        + z * (-0.004166666666666667 + z * (0.007575757575757576 + z * (-0.021092796092796094
        + z * (0.08333333333333333 + z * -0.4432598039215686))))));
    return tmp + (ppl_log(xm) + 1.0 / (2.0 * xm) - z * p);
  }
  while (x > 2.0) {
    x -= 1.0;
    tmp += 1.0 / x;
  }
  while (x < 1.0) {
    tmp -= 1.0 / x;
    x += 1.0;
  }
  // x - x0 with x0 in three parts, subtracted in this order: `precise`, or the compiler folds
  // the three constants into one and the digits below the first part are lost.
  precise REAL g = x - PPL_DIGAMMA_ROOT1;  // the split is per type (real_f32.glsl, real_f64.glsl)
  g -= PPL_DIGAMMA_ROOT2;
  g -= PPL_DIGAMMA_ROOT3;
  REAL rr = ppl_digamma_rational(x - 1.0);
  return tmp + (g * 0.99558162689208984 + g * rr);
}

// ---- shaders/prelude/polygamma.glsl
// polygamma(n, x) = d^n/dx^n digamma(x) for n = 0..3 (n = 0 is ppl_digamma; other n give NaN).
// For x > 0: the recurrence psi_n(x) = psi_n(x+1) + (-1)^(n+1) n!/x^(n+1) shifts x to >= 16
// (a sum of same-signed terms, so no cancellation), then the asymptotic series
//   (-1)^(n+1) psi_n(x) ~ (n-1)!/x^n * (1 + n/(2x) + sum_{k=1..10} c_k(n)/x^(2k)),
//   c_k(n) = B_2k (2k+n-1)! / ((2k)! (n-1)!),
// whose first omitted term is below 1e-19 relative at x = 16. Relative error ~1e-15 (f64).
// For x < 0 (non-integer): reflection, from differentiating psi(1-x) - psi(x) = pi cot(pi x):
//   psi_1(x) = -psi_1(1-x) + pi^2 / sin^2(pi x)
//   psi_2(x) =  psi_2(1-x) - 2 pi^3 cos(pi x) / sin^3(pi x)
//   psi_3(x) = -psi_3(1-x) + 2 pi^4 (2 cos^2(pi x) + 1) / sin^4(pi x)
// with sin(pi x), cos(pi x) from ppl_sinpi/ppl_cospi (exact reduction). At the poles (0 and
// negative integers) the values follow the CPU reference: NaN for n = 1, +inf for n = 2 and 3.
// (For tiny x > 0 the CPU reference returns +inf for n = 2; the true limit, returned here, is -inf.)
// Generic over REAL.

REAL ppl_polygamma_pos(int n, REAL x) {
  REAL acc = 0.0;
  while (x < 16.0) {
    REAL inv = 1.0 / x;
    REAL p = inv * inv;  // 1/x^2
    if (n >= 2) p *= inv;
    if (n >= 3) p *= inv;
    acc += p;
    x += 1.0;
  }
  REAL inv = 1.0 / x;
  REAL z = inv * inv;
  REAL s;
  REAL lead;  // (n-1)!/x^n
  REAL nfact;  // n!
  if (n == 1) {
    s = z * (0.16666666666666666 + z * (-0.033333333333333333 + z * (0.023809523809523808
        + z * (-0.033333333333333333 + z * (0.07575757575757576 + z * (-0.2531135531135531
        + z * (1.1666666666666667 + z * (-7.0921568627450977 + z * (54.971177944862156
        + z * -529.12424242424242)))))))));
    lead = inv;
    nfact = 1.0;
  } else if (n == 2) {
    s = z * (0.5 + z * (-0.16666666666666666 + z * (0.16666666666666666
        + z * (-0.29999999999999999 + z * (0.83333333333333337 + z * (-3.2904761904761903
        + z * (17.5 + z * (-120.56666666666666 + z * (1044.452380952381
        + z * -11111.609090909091)))))))));
    lead = z;
    nfact = 2.0;
  } else {
    s = z * (1.0 + z * (-0.5 + z * (0.66666666666666663 + z * (-1.5 + z * (5.0
        + z * (-23.033333333333335 + z * (140.0 + z * (-1085.0999999999999
        + z * (10444.523809523809 + z * -122227.7)))))))));
    lead = 2.0 * z * inv;
    nfact = 6.0;
  }
  REAL asym = lead * (1.0 + REAL(n) * 0.5 * inv + s);
  REAL v = nfact * acc + asym;
  return (n == 2) ? -v : v;
}

REAL ppl_polygamma(int n, REAL x) {
  if (n == 0) return ppl_digamma(x);
  if (n < 0 || n > 3 || ppl_isnan(x)) return PPL_NAN;
  if (x > 0.0) return ppl_isinf(x) ? (n == 2 ? -0.0 : 0.0) : ppl_polygamma_pos(n, x);
  if (ppl_isinf(x)) return PPL_NAN;
  if (floor(x) == x) return n == 1 ? PPL_NAN : PPL_INF;
  const REAL PI = 3.14159265358979311600e+00;
  REAL sp = ppl_sinpi(x);
  REAL cp = ppl_cospi(x);
  REAL reflected = ppl_polygamma_pos(n, 1.0 - x);
  REAL pis = PI / sp;
  REAL pis2 = pis * pis;
  if (n == 1) return -reflected + pis2;
  if (n == 2) return reflected - 2.0 * pis2 * pis * cp;
  return -reflected + 2.0 * pis2 * pis2 * (2.0 * cp * cp + 1.0);
}

REAL ppl_trigamma(REAL x) { return ppl_polygamma(1, x); }

// ---- shaders/prelude/cdf.glsl
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
#define PPL_LENTZ_TINY 1.0e-30

// Acklam's rational approximation of the normal quantile for 0 < p <= 1/2 (relative error
// 1.2e-9), refined by one Halley step on Phi(x) - p, which gives full precision in f64. The
// step is skipped for subnormal p, where exp(x^2/2) would overflow.
REAL ppl_inv_phi_lower(REAL p) {
  REAL x;
  if (p < 0.02425) {
    REAL q = sqrt(-2.0 * ppl_log(p));
    x = (((((-7.784894002430293e-03 * q + -3.223964580411365e-01) * q + -2.400758277161838e+00) * q
        + -2.549732539343734e+00) * q + 4.374664141464968e+00) * q + 2.938163982698783e+00)
        / ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q + 2.445134137142996e+00) * q
        + 3.754408661907416e+00) * q + 1.0);
  } else {
    REAL q = p - 0.5;
    REAL r = q * q;
    x = (((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r + -2.759285104469687e+02) * r
        + 1.383577518672690e+02) * r + -3.066479806614716e+01) * r + 2.506628277459239e+00) * q
        / (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r + -1.556989798598866e+02) * r
        + 6.680131188771972e+01) * r + -1.328068155288572e+01) * r + 1.0);
  }
  if (p < PPL_MIN_NORMAL) return x;
  REAL e = 0.5 * ppl_erfc(-x * 0.70710678118654752440) - p;
  REAL u = e * 2.50662827463100050242 * ppl_exp(0.5 * x * x);
  return x - u / (1.0 + 0.5 * x * u);
}

REAL ppl_inv_phi(REAL p) {
  if (ppl_isnan(p) || p < 0.0 || p > 1.0) return PPL_NAN;
  if (p == 0.0) return -PPL_INF;
  if (p == 1.0) return PPL_INF;
  // 1 - p is exact for p >= 1/2, so the upper half reuses the lower tail without cancellation.
  return p > 0.5 ? -ppl_inv_phi_lower(1.0 - p) : ppl_inv_phi_lower(p);
}

// log(x^a e^-x / Gamma(a)): the prefactor of the series and of the continued fraction.
REAL ppl_gamma_log_prefactor(REAL a, REAL x) {
  return a * ppl_log(x) - x - ppl_lgamma(a);
}

// P(a, x) = x^a e^-x / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n)), used for x < a + 1, where the
// terms fall at least geometrically after n ~ x - a.
REAL ppl_gamma_p_series(REAL a, REAL x) {
  REAL ap = a;
  REAL term = 1.0 / a;
  REAL sum = term;
  for (int n = 0; n < 10000; n++) {
    ap += 1.0;
    term *= x / ap;
    sum += term;
    if (abs(term) < abs(sum) * PPL_EPS) break;
  }
  return sum * ppl_exp(ppl_gamma_log_prefactor(a, x));
}

// Q(a, x) by Legendre's continued fraction (modified Lentz), used for x >= a + 1.
REAL ppl_gamma_q_fraction(REAL a, REAL x) {
  REAL b = x + 1.0 - a;
  REAL c = 1.0 / PPL_LENTZ_TINY;
  REAL d = 1.0 / b;
  REAL h = d;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    b += 2.0;
    d = an * d + b;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = b + an / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - 1.0) < PPL_EPS) break;
  }
  return ppl_exp(ppl_gamma_log_prefactor(a, x)) * h;
}

REAL ppl_gamma_p(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return 0.0;
  if (ppl_isinf(x)) return 1.0;
  return x < a + 1.0 ? ppl_gamma_p_series(a, x) : 1.0 - ppl_gamma_q_fraction(a, x);
}

REAL ppl_gamma_q(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return 1.0;
  if (ppl_isinf(x)) return 0.0;
  return x < a + 1.0 ? 1.0 - ppl_gamma_p_series(a, x) : ppl_gamma_q_fraction(a, x);
}

// dP(a, x)/da (see packages/tensor/src/cpu/special.ts, gammaPDa): below x = a + 1 the series of P
// differentiated term by term, P (log x - psi(a+1)) - x^a e^-x / Gamma(a+1) sum_n s_n H_n with
// s_n = x^n / ((a+1)...(a+n)) and H_n = sum_{k<=n} 1/(a+k); above, -dQ/da from Q's continued
// fraction differentiated in a alongside its value (forward mode through the Lentz steps).
REAL ppl_gamma_p_da(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0 || ppl_isinf(x)) return 0.0;
  REAL logx = ppl_log(x);
  if (x < a + 1.0) {
    REAL s = 1.0;
    REAL sum = 1.0;
    REAL hn = 0.0;
    REAL sumH = 0.0;
    for (int n = 1; n < 10000; n++) {
      hn += 1.0 / (a + REAL(n));
      s *= x / (a + REAL(n));
      sum += s;
      sumH += s * hn;
      if (s < sum * PPL_EPS && s * hn < sumH * PPL_EPS) break;
    }
    REAL pref = ppl_exp(a * logx - x - ppl_lgamma(a + 1.0));
    return pref * (sum * (logx - ppl_digamma(a + 1.0)) - sumH);
  }
  REAL b = x + 1.0 - a;
  REAL db = -1.0;
  REAL c = 1.0 / PPL_LENTZ_TINY;
  REAL dc = 0.0;
  REAL d = 1.0 / b;
  REAL dd = -db / (b * b);
  REAL h = d;
  REAL dh = dd;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    REAL dan = REAL(i);
    b += 2.0;
    REAL raw = an * d + b;
    REAL draw = dan * d + an * dd + db;
    if (abs(raw) < PPL_LENTZ_TINY) { raw = PPL_LENTZ_TINY; draw = 0.0; }
    REAL nc = b + an / c;
    REAL dnc = db + (dan - an * dc / c) / c;  // d(an/c)/da, without squaring c (which starts at 1/tiny)
    if (abs(nc) < PPL_LENTZ_TINY) { nc = PPL_LENTZ_TINY; dnc = 0.0; }
    c = nc;
    dc = dnc;
    d = 1.0 / raw;
    dd = -draw / (raw * raw);
    REAL del = d * c;
    REAL ddel = dd * c + d * dc;
    REAL ndh = dh * del + h * ddel;
    bool done = abs(del - 1.0) < PPL_EPS && abs(ndh - dh) <= PPL_EPS * abs(ndh);
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
  REAL qap = a + 1.0;
  REAL qam = a - 1.0;
  REAL c = 1.0;
  REAL d = 1.0 - qab * x / qap;
  if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
  d = 1.0 / d;
  REAL h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = 2.0 * rm;
    REAL aa = rm * (b - rm) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = 1.0 + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + rm) * (qab + rm) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = 1.0 + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - 1.0) < PPL_EPS) break;
  }
  return h;
}

REAL ppl_betainc(REAL a, REAL b, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > 0.0) || !(b > 0.0) || x < 0.0 || x > 1.0) {
    return PPL_NAN;
  }
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  // log(x^a (1-x)^b / B(a, b))
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return ppl_exp(lf) * ppl_beta_fraction(a, b, x) / a;
  return 1.0 - ppl_exp(lf) * ppl_beta_fraction(b, a, 1.0 - x) / b;
}

// Dual numbers (value, d/da, d/db) for differentiating the beta continued fraction in its shapes.
REAL3 ppl_dual_mul(REAL3 u, REAL3 v) { return REAL3(u.x * v.x, u.x * v.y + u.y * v.x, u.x * v.z + u.z * v.x); }
REAL3 ppl_dual_div(REAL3 u, REAL3 v) {
  REAL q = u.x / v.x;
  return REAL3(q, (u.y - q * v.y) / v.x, (u.z - q * v.z) / v.x);
}
REAL3 ppl_dual_guard(REAL3 u) { return abs(u.x) < PPL_LENTZ_TINY ? REAL3(PPL_LENTZ_TINY, 0.0, 0.0) : u; }

// ppl_beta_fraction on dual numbers of its shapes a and b (forward mode through the Lentz steps),
// run until the value and both derivatives have settled.
REAL3 ppl_beta_fraction_dual(REAL a, REAL b, REAL x) {
  REAL3 A = REAL3(a, 1.0, 0.0);
  REAL3 B = REAL3(b, 0.0, 1.0);
  REAL3 one = REAL3(1.0, 0.0, 0.0);
  REAL3 qab = REAL3(a + b, 1.0, 1.0);
  REAL3 qap = A + one;
  REAL3 qam = A - one;
  REAL3 c = one;
  REAL3 d = ppl_dual_div(one, ppl_dual_guard(one - ppl_dual_div(qab * x, qap)));
  REAL3 h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = 2.0 * rm;
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
    if (abs(del.x - 1.0) < PPL_EPS && settled) break;
  }
  return h;
}

// dI_x(a, b)/da (wrt = 0) or /db (wrt = 1): the prefactor x^a (1-x)^b / B(a, b) through digamma and
// the continued fraction through its dual, on the side where it converges (as ppl_betainc).
REAL ppl_betainc_grad(REAL a, REAL b, REAL x, int wrt) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > 0.0) || !(b > 0.0) || x < 0.0 || x > 1.0) {
    return PPL_NAN;
  }
  if (x == 0.0 || x == 1.0) return 0.0;
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  REAL psab = ppl_digamma(a + b);
  REAL lfa = psab - ppl_digamma(a) + ppl_log(x);
  REAL lfb = psab - ppl_digamma(b) + ppl_log1p(-x);
  REAL f = ppl_exp(lf);
  if (x < (a + 1.0) / (a + b + 2.0)) {
    REAL3 h = ppl_beta_fraction_dual(a, b, x);
    return wrt == 0 ? f * (lfa * h.x / a + h.y / a - h.x / (a * a)) : f * (lfb * h.x / a + h.z / a);
  }
  // cf(b, a, 1 - x): its first shape is b (the .y part), its second a (.z).
  REAL3 h = ppl_beta_fraction_dual(b, a, 1.0 - x);
  return wrt == 0 ? -f * (lfa * h.x / b + h.z / b) : -f * (lfb * h.x / b + h.y / b - h.x / (b * b));
}

// (1/2pi) int_0^a exp(-h^2 (1+t^2)/2) / (1+t^2) dt for h >= 0, 0 <= a <= 1, by 32-point
// Gauss-Legendre over the part of [0, a] where the integrand is above exp(-50) of its value at 0.
REAL ppl_owens_t_quadrature(REAL h, REAL a) {
  const REAL nodes[16] = REAL[16](0.048307665687738324, 0.1444719615827965, 0.23928736225213706, 0.33186860228212767, 0.42135127613063533, 0.5068999089322294, 0.5877157572407623, 0.6630442669302152, 0.7321821187402897, 0.7944837959679424, 0.84936761373257, 0.8963211557660521, 0.9349060759377397, 0.9647622555875064, 0.9856115115452684, 0.9972638618494816);
  const REAL weights[16] = REAL[16](0.09654008851472766, 0.09563872007927471, 0.09384439908080451, 0.09117387869576378, 0.08765209300440378, 0.08331192422694671, 0.07819389578707023, 0.07234579410884834, 0.06582222277636168, 0.058684093478535565, 0.05099805926237609, 0.042835898022226836, 0.034273862913021765, 0.025392065309262024, 0.016274394730905743, 0.007018610009470506);
  REAL u = h * a > 10.0 ? 10.0 / h : a;
  REAL hw = 0.5 * u;
  REAL s = 0.0;
  for (int k = 0; k < 16; k++) {
    REAL t1 = hw * (1.0 - nodes[k]);
    REAL t2 = hw * (1.0 + nodes[k]);
    REAL q1 = 1.0 + t1 * t1;
    REAL q2 = 1.0 + t2 * t2;
    s += weights[k] * (ppl_exp(-0.5 * h * h * q1) / q1 + ppl_exp(-0.5 * h * h * q2) / q2);
  }
  return s * hw * 0.15915494309189533577;  // 1 / (2 pi)
}

// T is even in h and odd in a; for |a| > 1, T(h, a) = Q(h)/2 + Q(ah)/2 - Q(h) Q(ah) - T(ah, 1/a)
// with upper normal tails Q (which do not cancel for large h) maps the integral onto [0, 1].
REAL ppl_owens_t(REAL h, REAL a) {
  if (ppl_isnan(h) || ppl_isnan(a)) return PPL_NAN;
  REAL sg = a < 0.0 ? -1.0 : 1.0;
  REAL aa = abs(a);
  REAL ah = abs(h);
  if (aa == 0.0 || ppl_isinf(ah)) return 0.0;
  if (aa <= 1.0) return sg * ppl_owens_t_quadrature(ah, aa);
  if (ah == 0.0) return sg * ppl_atan(aa) * 0.15915494309189533577;
  REAL qh = 0.5 * ppl_erfc(ah * 0.70710678118654752440);
  REAL qah = 0.5 * ppl_erfc(aa * ah * 0.70710678118654752440);
  REAL rest = ppl_isinf(aa) ? 0.0 : ppl_owens_t_quadrature(aa * ah, 1.0 / aa);
  return sg * (0.5 * qh + 0.5 * qah - qh * qah - rest);
}

#undef PPL_LENTZ_TINY

// ---- shaders/prelude/normal.glsl
// Uniform and standard normal variates from one Philox block (x0, x1, x2, x3), as
// packages/ppl/src/random/streams.ts: u0 = uniform(x0, x1), u1 = uniform(x2, x3) and the
// Box-Muller pair n0 = r cos(2 pi u1), n1 = r sin(2 pi u1), r = sqrt(-2 log u0).
// f64: uniforms are bit-exact; normals use the fdlibm log/cos/sin ports (the algorithms JS
// Math uses), so they match the CPU to the last bit wherever the device rounds IEEE-exactly.
// f32: uniforms are the f64 ones correctly rounded to float (see ppl_uniform_f32); normals are
// computed in float, within a few float ulp of the f64 ones. Generic over REAL.

REAL PPL_SFX(ppl_uniform0)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.x, w.y); }
REAL PPL_SFX(ppl_uniform1)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.z, w.w); }

REAL PPL_SFX(ppl_box_muller_radius)(uvec4 w) {
  return sqrt(-2.0 * ppl_log(PPL_SFX(ppl_uniform)(w.x, w.y)));
}
REAL PPL_SFX(ppl_normal0)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_cos(6.283185307179586 * PPL_SFX(ppl_uniform)(w.z, w.w));
}
REAL PPL_SFX(ppl_normal1)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_sin(6.283185307179586 * PPL_SFX(ppl_uniform)(w.z, w.w));
}

// ---- shaders/prelude/real_end.glsl
// Ends one instantiation of the generic prelude files (see real_f64.glsl).
#undef REAL
#undef PPL_SFX
#undef PPL_NAN
#undef PPL_INF
#undef PPL_LN2_HI
#undef PPL_LN2_LO
#undef PPL_EXP_OVERFLOW
#undef PPL_EXP_UNDERFLOW
#undef PPL_EXP_TINY
#undef PPL_EXPM1_SATURATE
#undef PPL_EXPM1_TINY
#undef PPL_EXPM1_KSPLIT
#undef PPL_TANH_SATURATE
#undef PPL_TANH_TINY
#undef PPL_ERF_SMALL
#undef PPL_ALL_INTEGERS
#undef PPL_SPLITTER
#undef PPL_EPS
#undef PPL_MIN_NORMAL
#undef REAL3
#undef PPL_DIGAMMA_ROOT1
#undef PPL_DIGAMMA_ROOT2
#undef PPL_DIGAMMA_ROOT3

// part 0: add [1024] (node 7019cebcc7e7cd64898e9fb7)
void ppl_part0(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float t0 = b0.v[(u)*4];
  float t1 = t0;
  float t2 = t1;
  float t3 = (t2/2.50000000);
  float t4 = (t3*t3);
  float t5 = (0.500000000*t4);
  float t6 = (t5+0.916290760);
  float t7 = (-t6);
  float t8 = (t7-0.918938518);
  float t9 = b1.v[u];
  float t10 = (t8+t9);
  float t11 = b2.v[u];
  b3.v[u] = (t10+t11);
}
// part 1: matmul [3,1024] (node 17f1d6e6f890cca7915448c9): tiled matmul 4x32x16, 4 k-slices, the last merges them
void ppl_part1(int gid, uint ppl_lid) {
  if (gid >= 128) return;
  int tileId = gid / 4; int p = gid - tileId * 4;
  int tc = tileId % 32; int tr = (tileId / 32) % 1; int bt = tileId / 32;
  int i0 = tr * 4; int j0 = tc * 32;
  int kBegin = p * 64; int kEnd = min(200, kBegin + 64);
  int t = int(ppl_lid);
  int col = t % 32; int row0 = t / 32;
  float acc[1];
  for (int j = 0; j < 1; j++) acc[j] = 0.00000000;
  for (int k0 = kBegin; k0 < kEnd; k0 += 16) {
    for (int q = 0; q < 1; q++) {
      int e = int(ppl_lid) + 128 * q;
      int r = e % 4; int c = e / 4;
      float val = 0.00000000;
      if (e < 64 && i0 + r < 3 && k0 + c < kEnd) {
        float t0 = b4.v[(((k0 + c))*3+(i0 + r))];
        float t1 = t0;
        val = t1;
      }
      if (e < 64) ppl_As[r * 17 + c] = val;
    }
    for (int q = 0; q < 4; q++) {
      int e = int(ppl_lid) + 128 * q;
      int r = e % 16; int c = e / 16;
      float val = 0.00000000;
      if (e < 512 && k0 + r < kEnd && j0 + c < 1024) {
        float t2 = b5.v[(((j0 + c))*200+(k0 + r))];
        float t3 = t2;
        val = t3;
      }
      if (e < 512) ppl_Bs[r * 33 + c] = val;
    }
    memoryBarrierShared(); barrier();
    for (int kk = 0; kk < 16; kk++) {
      float b = ppl_Bs[kk * 33 + col];
      for (int j = 0; j < 1; j++) acc[j] += ppl_As[(row0 + j * 4) * 17 + kk] * b;
    }
    memoryBarrierShared(); barrier();
  }
  for (int j = 0; j < 1; j++) {
    int i = i0 + row0 + j * 4; int jj = j0 + col;
    if (i < 3 && jj < 1024) { b6.v[p * 3072 + (bt * 3072 + i * 1024 + jj)] = acc[j]; }
  }
  memoryBarrierBuffer(); memoryBarrierShared(); barrier();
  if (ppl_lid == 0) ppl_done = atomicAdd(b7.v[tileId], 1);
  memoryBarrierShared(); barrier();
  if (ppl_done != 3) return;
  memoryBarrierBuffer();
  for (int j = 0; j < 1; j++) {
    int i = i0 + row0 + j * 4; int jj = j0 + col;
    if (i < 3 && jj < 1024) { float sum = 0.00000000; for (int q = 0; q < 4; q++) sum += b6.v[q * 3072 + (bt * 3072 + i * 1024 + jj)]; b8.v[(bt * 3072 + i * 1024 + jj)] = sum; }
  }
  if (ppl_lid == 0) b7.v[tileId] = 0;
}
// part 2: reduce_sum [1024] (node 36ec56faf387ab2d8e5010c4)
void ppl_part2(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float acc0 = 0.00000000;
  for (int k1 = 0; k1 < 200; k1++) {
    float t2 = b5.v[((u)*200+k1)];
    acc0 = acc0 + t2;
  }
  b9.v[u] = acc0;
}
void main() {
  int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (g < 8) { ppl_part0(g * 2 + int(gl_LocalInvocationIndex / 64u), gl_LocalInvocationIndex % 64u); return; }
  g -= 8;
  if (g < 128) { ppl_part1(g, gl_LocalInvocationIndex); return; }
  g -= 128;
  if (g < 8) { ppl_part2(g * 2 + int(gl_LocalInvocationIndex / 64u), gl_LocalInvocationIndex % 64u); return; }
}

// ----
#version 450
// kernel for add float[1024,4] (node 81a0d6e1a5f04689f8387987)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// ---- shaders/prelude/philox.glsl
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC'11), bit-exact with Random123 and with packages/ppl/src/random/philox.ts.
// Type-free (32-bit unsigned integers only); included once, before both REAL instantiations.

// Encrypts counter (c.x, c.y, c.z, c.w) under key (k.x, k.y): ten rounds, the key bumped by the
// Weyl constants between rounds (not before the first).
uvec4 ppl_philox4x32(uvec4 c, uvec2 k) {
  for (int round = 0; round < 10; round++) {
    if (round > 0) k += uvec2(0x9E3779B9u, 0xBB67AE85u);
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
  }
  return c;
}

// The keyed stream of packages/ppl/src/random/streams.ts:
//   key = (seed mod 2^32, seed / 2^32), counter = (chain, iteration, purpose | sub << 8, block).
uvec4 ppl_philox_stream(uvec2 seedKey, uint chain, uint iteration, uint purpose, uint sub, uint block) {
  return ppl_philox4x32(uvec4(chain, iteration, purpose | (sub << 8), block), seedKey);
}

// ---- shaders/prelude/real_f32.glsl
// Type header for the f32 instantiation of the prelude (see real_f64.glsl for the scheme).
// Same algorithms as f64, with single-precision thresholds and splits (fdlibm's *f variants).

#define REAL float
#define PPL_SFX(name) name##_f32

#define PPL_LN2_HI 6.9313812256e-01      // 0x3f317180: k*LN2_HI exact for |k| <= 128
#define PPL_LN2_LO 9.0580006145e-06      // 0x3717f7d1
#define PPL_EXP_OVERFLOW 8.8722839355e+01 // 0x42b17218, ~ln(FLT_MAX)
#define PPL_EXP_UNDERFLOW -1.0397208405e+02 // 0xc2cff1b5
#define PPL_EXP_TINY 6.103515625e-05      // 2^-14
#define PPL_EXPM1_SATURATE 1.8714973450e+01 // 27*ln2
#define PPL_EXPM1_TINY 2.98023223876953125e-08 // 2^-25
#define PPL_EXPM1_KSPLIT 23
#define PPL_TANH_SATURATE 9.0
#define PPL_TANH_TINY 2.44140625e-04      // 2^-12
#define PPL_ERF_SMALL 6.103515625e-05     // 2^-14
#define PPL_ALL_INTEGERS 8388608.0        // 2^23
#define PPL_SPLITTER 4097.0               // 2^12 + 1
#define PPL_EPS 5.9604644775390625e-08    // 2^-24, half an ulp of 1: the series' and fractions' stopping test
#define PPL_MIN_NORMAL 1.1754943508e-38   // 2^-126
#define REAL3 vec3                        // a dual number (value and two partial derivatives)
// The positive root of digamma, x0 = 1.46163214496836234126..., as a sum of three floats.
#define PPL_DIGAMMA_ROOT1 1.461632133e+00
#define PPL_DIGAMMA_ROOT2 1.243815007e-08
#define PPL_DIGAMMA_ROOT3 -1.265446444e-16

float ppl_nan_f32() { return uintBitsToFloat(0x7fc00000u); }
float ppl_inf_f32() { return uintBitsToFloat(0x7f800000u); }
#define PPL_NAN ppl_nan_f32()
#define PPL_INF ppl_inf_f32()

bool ppl_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool ppl_isinf(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u; }

// Sign bit, which also tells -0 from +0.
bool ppl_signbit(float x) { return (floatBitsToUint(x) >> 31) != 0u; }

// 2^e for e in [-126, 127].
float ppl_exp2i_f32(int e) { return uintBitsToFloat(uint(e + 127) << 23); }

// y * 2^k for k in [-252, 254] with two exact power-of-two factors (see the f64 version).
float ppl_scale(float y, int k) {
  int k1 = k / 2;
  precise float t = y * ppl_exp2i_f32(k1);
  precise float r = t * ppl_exp2i_f32(k - k1);
  return r;
}

// For finite x > 0: xm in [1, 2), x = xm * 2^k, and the top 20 significand bits (as for f64,
// so that fdlibm's thresholds on the high word apply unchanged).
float ppl_normalize(float x, out int k, out int hx) {
  int k0 = 0;
  uint b = floatBitsToUint(x);
  if (b < 0x00800000u) {  // subnormal (where the device keeps them): scale by 2^25 first
    b = floatBitsToUint(x * 33554432.0);
    k0 = -25;
  }
  k = k0 + int(b >> 23) - 127;
  hx = int((b & 0x007fffffu) >> 3);
  return uintBitsToFloat((b & 0x007fffffu) | 0x3f800000u);
}

// x with the low 13 significand bits cleared (fdlibm's erff and cosf use 0xffffe000): its square
// is exact and, for the arguments of erfc, so is -x^2 - 0.5625.
float ppl_clear_low(float x) { return uintBitsToFloat(floatBitsToUint(x) & 0xffffe000u); }

int ppl_biased_exponent(float x) { return int((floatBitsToUint(x) >> 23) & 0xffu); }

// x = n*pi/2 + y0 (y1 = 0): Cody-Waite with pi/2 split into three 8-bit parts and a float tail,
// so n*part is exact for |n| < 2^16; accurate to ~1 ulp of the result for |x| < 1e5, except
// within ~1e-10 of a multiple of pi/2, where the error stays ~1e-10 absolute.
int ppl_rem_pio2(float x, out float y0, out float y1) {
  y1 = 0.0;
  if (abs(x) <= 7.8539818525e-01) { y0 = x; return 0; }
  float fn = floor(x * 6.366197467e-01 + 0.5);
  precise float r = x - fn * 1.570312500e+00;
  r = r - fn * 4.825592041e-04;
  r = r - fn * 1.266598701e-06;
  r = r - fn * 9.920936295e-10;
  y0 = r;
  return int(fn);
}

// Uniform float in (0, 1) from two Philox words: the f64 uniform of ppl_uniform_f64 (and of
// packages/ppl/src/random/variates.ts) correctly rounded to float, computed with integer
// arithmetic so no double support is needed. The only exception: values that would round to
// 1.0 (probability 2^-25) return the largest float below 1, so that u < 1 always holds.
float ppl_uniform_f32(uint hi, uint lo) {
  // M = 2*(hi >> 12)*2^32 + 2*lo + 1 (53 bits) and u = M * 2^-53; split M as mh*2^32 + ml.
  uint mh = ((hi >> 12) << 1) | (lo >> 31);
  uint ml = (lo << 1) | 1u;
  int msb = mh != 0u ? 32 + findMSB(mh) : findMSB(ml);
  int shift = msb - 23;  // bits to drop to keep a 24-bit significand
  if (shift <= 0) return float(ml) * 1.1102230246251565e-16;  // M < 2^24: exact (ml < 2^24)
  // q = M >> shift, rem = M mod 2^shift, compared with half = 2^(shift-1).
  uint q;
  uint remHi;  // rem >> 32 (only when shift > 32)
  uint remLo;
  if (shift >= 32) {
    q = mh >> (shift - 32);
    remHi = shift == 32 ? 0u : mh & ((1u << (shift - 32)) - 1u);
    remLo = ml;
  } else {
    q = (mh << (32 - shift)) | (ml >> shift);
    remHi = 0u;
    remLo = ml & ((1u << shift) - 1u);
  }
  uint halfHi = shift > 32 ? 1u << (shift - 33) : 0u;
  uint halfLo = shift > 32 ? 0u : 1u << (shift - 1);
  bool above = remHi > halfHi || (remHi == halfHi && remLo > halfLo);
  bool tie = remHi == halfHi && remLo == halfLo;
  if (above || (tie && (q & 1u) == 1u)) q += 1u;
  float u = float(q) * ppl_exp2i_f32(shift - 53);
  return min(u, 0.99999994);
}

// ---- shaders/prelude/double_word.glsl
// Error-free transformations (Dekker 1971, Knuth TAOCP 4.2.2) for double-word arithmetic, used by
// pow and mod. Generic over REAL. Every temporary is `precise`: the compiler must neither fuse
// a*b+c into an fma nor reassociate, or the error terms come out as zero.

// a = hi + lo exactly, each half with at most half the significand bits (Veltkamp splitting).
void ppl_split(REAL a, out REAL hi, out REAL lo) {
  precise REAL c = PPL_SPLITTER * a;
  precise REAL h = c - (c - a);
  precise REAL l = a - h;
  hi = h;
  lo = l;
}

// a * b = p + e exactly (Dekker's product); needs |a|, |b| far from overflow.
void ppl_two_prod(REAL a, REAL b, out REAL p, out REAL e) {
  REAL ah, al, bh, bl;
  ppl_split(a, ah, al);
  ppl_split(b, bh, bl);
  precise REAL pp = a * b;
  precise REAL ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
  p = pp;
  e = ee;
}

// a + b = s + e exactly (Knuth's two-sum, no ordering requirement).
void ppl_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL bb = ss - a;
  precise REAL ee = (a - (ss - bb)) + (b - bb);
  s = ss;
  e = ee;
}

// a + b = s + e exactly when |a| >= |b| or a == 0 (Dekker's fast two-sum).
void ppl_fast_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL ee = b - (ss - a);
  s = ss;
  e = ee;
}

// ---- shaders/prelude/basic.glsl
// Elementwise basics with the CPU backend's semantics (packages/tensor/src/cpu/scalar.ts).
// Generic over REAL (see real_f64.glsl).

REAL ppl_abs(REAL x) { return abs(x); }
REAL ppl_neg(REAL x) { return -x; }
REAL ppl_floor(REAL x) { return floor(x); }
REAL ppl_ceil(REAL x) { return ceil(x); }
REAL ppl_square(REAL x) { return x * x; }
REAL ppl_reciprocal(REAL x) { return 1.0 / x; }

// sign: +1, -1, and x itself for +-0 and NaN (like the CPU, unlike GLSL's sign on NaN).
REAL ppl_sign(REAL x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x); }

// sqrt is correctly rounded for both types in Vulkan (SPIR-V Sqrt on double is exact on
// lavapipe and NVIDIA); rsqrt is 1/sqrt rather than inversesqrt, whose f64 precision is unspecified.
REAL ppl_sqrt(REAL x) { return sqrt(x); }
REAL ppl_rsqrt(REAL x) { return 1.0 / sqrt(x); }

// max/min with the CPU's NaN rule: NaN in either argument gives NaN.
REAL ppl_max(REAL a, REAL b) { return (a >= b || ppl_isnan(a)) ? a : b; }
REAL ppl_min(REAL a, REAL b) { return (a <= b || ppl_isnan(a)) ? a : b; }

// Python-style remainder (sign of the divisor), as the CPU's mod: r = a - trunc(a/b)*b with the
// product formed exactly (Dekker), then one correction step for a rounded-up quotient and the
// shift by b when the signs of r and b differ. Exact while |a/b| < 2^52 (2^23 for f32); for larger
// quotients (huge a, tiny b) the result is inaccurate or NaN: no bitwise long division is done.
REAL ppl_mod(REAL a, REAL b) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isinf(a) || b == 0.0) return PPL_NAN;
  if (ppl_isinf(b)) return (a != 0.0 && (a < 0.0) != (b < 0.0)) ? b : a;
  precise REAL q = trunc(a / b);
  REAL p, e;
  ppl_two_prod(q, b, p, e);
  precise REAL r = (a - p) - e;
  // a/b rounded away from zero past an integer: r has the wrong sign; step q back by one.
  if (r != 0.0 && (r < 0.0) != (a < 0.0)) r = ((a < 0.0) == (b < 0.0)) ? r + b : r - b;
  if (r != 0.0 && (r < 0.0) != (b < 0.0)) r += b;
  return r;
}

REAL ppl_nan(REAL like) { return PPL_NAN; }
REAL ppl_inf(REAL like) { return PPL_INF; }

// ---- shaders/prelude/exp.glsl
// exp(x): fdlibm e_exp.c (as in V8, so f64 results match JS Math.exp), error < 1 ulp.
// Method: x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 = LN2_HI + LN2_LO, k*LN2_HI exact);
// exp(r) = 1 + 2r/(2 - R(r)) with R a degree-10 minimax polynomial in r (5 terms in r^2);
// then scale by 2^k. Generic over REAL; temporaries are `precise` because the formulas rely on
// the exact order of IEEE operations.

// 1 - ((lo - r*c/(2-c)) - hi) scaled by 2^k, for r = hi - lo.
REAL ppl_exp_kernel(REAL hi, REAL lo, int k) {
  precise REAL r = hi - lo;
  precise REAL t = r * r;
  precise REAL c = r - t * (1.66666666666666019037e-01 + t * (-2.77777777770155933842e-03
      + t * (6.61375632143793436117e-05 + t * (-1.65339022054652515390e-06
      + t * 4.13813679705723846039e-08))));
  precise REAL y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  return ppl_scale(y, k);
}

// exp(xh + xl) for a double-word argument (|xl| <= ulp(xh)): the tail joins the reduced argument.
REAL ppl_exp_dw(REAL xh, REAL xl) {
  if (ppl_isnan(xh)) return xh;
  if (xh > PPL_EXP_OVERFLOW) return PPL_INF;
  if (xh < PPL_EXP_UNDERFLOW) return 0.0;
  int k = int(1.44269504088896338700e+00 * xh + (xh < 0.0 ? -0.5 : 0.5));
  REAL fk = REAL(k);
  precise REAL hi = xh - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO - xl;
  return ppl_exp_kernel(hi, lo, k);
}

REAL ppl_exp(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  if (x < PPL_EXP_UNDERFLOW) return 0.0;
  REAL ax = abs(x);
  if (ax < PPL_EXP_TINY) return 1.0 + x;
  // |x| <= ln2/2 takes k = 0, so hi = x and lo = 0 and the kernel computes fdlibm's k = 0 formula
  // 1 - ((x*c)/(c - 2) - x) to the bit (0 - q = -q, and (x*c)/(2 - c) is that quotient negated).
  // A select instead of a separate path: a subgroup whose lanes straddle ln2/2 runs one path, not both.
  int k = ax <= 3.46573590279972654709e-01 ? 0 : int(1.44269504088896338700e+00 * x + (x < 0.0 ? -0.5 : 0.5));
  REAL fk = REAL(k);
  precise REAL hi = x - fk * PPL_LN2_HI;
  precise REAL lo = fk * PPL_LN2_LO;
  return ppl_exp_kernel(hi, lo, k);
}

// ---- shaders/prelude/log.glsl
// log(x) and log1p(x): fdlibm e_log.c and s_log1p.c (as in V8, so f64 log matches JS Math.log),
// error < 1 ulp. Method: x = 2^k * (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2));
// log(1 + f) = f - f^2/2 + s*(f^2/2 + R(z)) with s = f/(2 + f), z = s^2 and R a degree-14
// minimax polynomial (the atanh series 2s + 2s^3/3 + ... rearranged); k*ln2 added in two parts.
// log1p additionally carries the rounding error of 1 + x as a correction c/u.
// Generic over REAL; temporaries are `precise` (exact operation order matters).

REAL ppl_log(REAL x) {
  if (ppl_isnan(x) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  int k;
  int hx;
  REAL m = ppl_normalize(x, k, hx);  // x = m * 2^k, m in [1, 2); hx = top 20 bits of m - 1
  // fdlibm: (hx + 0x95f64) & 0x100000 is set when m >= ~sqrt(2); then use m/2 and k + 1.
  int i = (hx + 0x95f64) & 0x100000;
  if (i != 0) {
    m *= 0.5;
    k += 1;
  }
  precise REAL f = m - 1.0;
  REAL dk = REAL(k);
  if ((0x000fffff & (2 + hx)) < 3) {  // -2^-20 <= f < 2^-20
    if (f == 0.0) {
      if (k == 0) return 0.0;
      precise REAL res0 = dk * PPL_LN2_HI + dk * PPL_LN2_LO;
      return res0;
    }
    precise REAL r0 = f * f * (0.5 - 0.33333333333333333 * f);
    precise REAL res1 = (k == 0) ? f - r0 : dk * PPL_LN2_HI - ((r0 - dk * PPL_LN2_LO) - f);
    return res1;
  }
  precise REAL s = f / (2.0 + f);
  precise REAL z = s * s;
  int i2 = hx - 0x6147a;
  precise REAL w = z * z;
  int j = 0x6b851 - hx;
  precise REAL t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01
      + w * 1.531383769920937332e-01));
  precise REAL t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01
      + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  i2 |= j;
  precise REAL r = t2 + t1;
  precise REAL res;
  if (i2 > 0) {
    precise REAL hfsq = 0.5 * f * f;
    if (k == 0) res = f - (hfsq - s * (hfsq + r));
    else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + dk * PPL_LN2_LO)) - f);
  } else {
    if (k == 0) res = f - s * (f - r);
    else res = dk * PPL_LN2_HI - ((s * (f - r) - dk * PPL_LN2_LO) - f);
  }
  return res;
}

REAL ppl_log1p(REAL x) {
  if (ppl_isnan(x) || x < -1.0) return PPL_NAN;
  if (x == -1.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  REAL ax = abs(x);
  if (ax < 1.862645149230957e-09) {  // |x| < 2^-29: x - x^2/2 is exact to rounding
    precise REAL t = x - x * x * 0.5;
    return (ax < 5.551115123125783e-17) ? x : t;
  }
  int k = 1;
  precise REAL f;
  precise REAL c = 0.0;
  int hu = 1;
  if (x < 4.142135623730950488017e-01 && x > -2.928932188134524755992e-01) {
    // 1 + x in (sqrt(2)/2, sqrt(2)): no reduction, f = x exactly.
    k = 0;
    f = x;
  } else {
    precise REAL u = 1.0 + x;
    if (x < PPL_ALL_INTEGERS) {
      // c = (1 + x) - u, the rounding error of u, relative to u.
      c = (u >= 2.0) ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    }
    int hx;
    REAL m = ppl_normalize(u, k, hx);
    // As in log: switch to [sqrt(2)/2, 1) when m >= ~sqrt(2) (fdlibm's 0x6a09e threshold).
    hu = hx;
    if (hx >= 0x6a09e) {
      m *= 0.5;
      k += 1;
      hu = (0x100000 - hx) >> 2;  // zero when m is within 2^-20 of 2, i.e. |f| < 2^-20
    }
    f = m - 1.0;
  }
  REAL dk = REAL(k);
  precise REAL hfsq = 0.5 * f * f;
  if (hu == 0) {  // |f| < 2^-20 (only reachable with k != 0)
    if (f == 0.0) {
      precise REAL res0 = dk * PPL_LN2_HI + (c + dk * PPL_LN2_LO);
      return res0;
    }
    precise REAL r0 = hfsq * (1.0 - 0.66666666666666666 * f);
    precise REAL res1 = dk * PPL_LN2_HI - ((r0 - (dk * PPL_LN2_LO + c)) - f);
    return res1;
  }
  precise REAL s = f / (2.0 + f);
  precise REAL z = s * s;
  precise REAL r = z * (6.666666666666735130e-01 + z * (3.999999999940941908e-01
      + z * (2.857142874366239149e-01 + z * (2.222219843214978396e-01
      + z * (1.818357216161805012e-01 + z * (1.531383769920937332e-01
      + z * 1.479819860511658591e-01))))));
  precise REAL res;
  if (k == 0) res = f - (hfsq - s * (hfsq + r));
  else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * PPL_LN2_LO + c))) - f);
  return res;
}

// ---- shaders/prelude/expm1.glsl
// expm1(x) = exp(x) - 1 without cancellation near 0: fdlibm s_expm1.c, error < 1 ulp.
// Method: x = k*ln2 + r (Cody-Waite, with the rounding error of r kept in c); on |r| <= ln2/2
// expm1(r) = r + r^2/2 + r^3/2 * (3 - (R1 + R1*r/2))/(6 - r*(3 - R1*r/2)) with a rational
// approximation R1 in r^2 (5 terms); then 2^k*(expm1(r) - c + 1) - 1, rearranged per range of k
// to stay exact. Generic over REAL.

REAL ppl_expm1(REAL x) {
  if (ppl_isnan(x)) return x;
  if (x == 0.0) return x;  // keeps -0
  REAL ax = abs(x);
  if (ax >= PPL_EXPM1_SATURATE) {
    if (x < 0.0) return -1.0;
    if (x > PPL_EXP_OVERFLOW) return PPL_INF;
  }
  int k = 0;
  precise REAL c = 0.0;
  precise REAL xr = x;
  if (ax > 3.46573590279972654709e-01) {  // |x| > ln2/2: reduce
    precise REAL hi;
    precise REAL lo;
    if (ax < 1.03972077083991796413e+00) {  // |x| < 1.5*ln2: k = +-1
      if (x > 0.0) { hi = x - PPL_LN2_HI; lo = PPL_LN2_LO; k = 1; }
      else { hi = x + PPL_LN2_HI; lo = -PPL_LN2_LO; k = -1; }
    } else {
      k = int(1.44269504088896338700e+00 * x + (x < 0.0 ? -0.5 : 0.5));
      REAL t = REAL(k);
      hi = x - t * PPL_LN2_HI;  // exact
      lo = t * PPL_LN2_LO;
    }
    xr = hi - lo;
    c = (hi - xr) - lo;
  } else if (ax < PPL_EXPM1_TINY) {
    return x;
  }
  precise REAL hfx = 0.5 * xr;
  precise REAL hxs = xr * hfx;
  precise REAL r1 = 1.0 + hxs * (-3.33333333333331316428e-02 + hxs * (1.58730158725481460165e-03
      + hxs * (-7.93650757867487942473e-05 + hxs * (4.00821782732936239552e-06
      + hxs * -2.01099218183624371326e-07))));
  precise REAL t = 3.0 - r1 * hfx;
  precise REAL e = hxs * ((r1 - t) / (6.0 - xr * t));
  if (k == 0) {
    precise REAL y0 = xr - (xr * e - hxs);  // c is 0
    return y0;
  }
  e = (xr * (e - c) - c);
  e -= hxs;
  if (k == -1) {
    precise REAL ym = 0.5 * (xr - e) - 0.5;
    return ym;
  }
  if (k == 1) {
    precise REAL yp = (xr < -0.25) ? -2.0 * (e - (xr + 0.5)) : 1.0 + 2.0 * (xr - e);
    return yp;
  }
  if (k <= -2 || k > 56) {  // exp(x) - 1 directly: the -1 is negligible or the result is ~-1
    precise REAL y = 1.0 - (e - xr);
    y = ppl_scale(y, k);
    precise REAL y1 = y - 1.0;
    return y1;
  }
  precise REAL y;
  if (k < PPL_EXPM1_KSPLIT) {
    precise REAL u = 1.0 - ppl_scale(1.0, -k);  // 1 - 2^-k, exact
    y = u - (e - xr);
  } else {
    precise REAL u = ppl_scale(1.0, -k);  // 2^-k
    y = xr - (e + u);
    y += 1.0;
  }
  precise REAL y2 = ppl_scale(y, k);
  return y2;
}

// ---- shaders/prelude/trig.glsl
// sin, cos, and sin(pi x), cos(pi x): fdlibm s_sin.c / s_cos.c with the kernels k_sin.c, k_cos.c
// (as in V8, so f64 results match JS Math.sin/Math.cos where the reduction is exact), error < 1 ulp.
// Range reduction is ppl_rem_pio2 (per type, in real_f32.glsl / real_f64.glsl): Cody-Waite
// with a 3-part pi/2 for f64, exact for |x| < ~8e5; the f32 one is accurate for |x| < 1e5.
// The kernels take the reduced argument as a double-word y0 + y1. Generic over REAL.

// sin(x + y) on |x| <= pi/4, y the tail of x; iy = 0 means y is known to be 0.
REAL ppl_kernel_sin(REAL x, REAL y, int iy) {
  if (abs(x) < 7.450580596923828125e-09) return x;  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL v = z * x;
  precise REAL r = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04
      + z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08
      + z * 1.58969099521155010221e-10)));
  precise REAL res;
  if (iy == 0) res = x + v * (-1.66666666666666324348e-01 + z * r);
  else res = x - ((z * (0.5 * y - v * r) - y) - v * -1.66666666666666324348e-01);
  return res;
}

// cos(x + y) on |x| <= pi/4. For |x| >= 0.3, 1 - qx and x^2/2 - qx are exact (qx ~ x/4 with its
// low bits cleared), which keeps the subtraction accurate.
REAL ppl_kernel_cos(REAL x, REAL y) {
  REAL ax = abs(x);
  if (ax < 7.450580596923828125e-09) return 1.0;  // |x| < 2^-27
  precise REAL z = x * x;
  precise REAL r = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03
      + z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07
      + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
  precise REAL res;
  if (ax < 0.3) {
    res = 1.0 - (0.5 * z - (z * r - x * y));
  } else {
    REAL qx = (ax > 0.78125) ? 0.28125 : ppl_clear_low(ax * 0.25);
    precise REAL hz = 0.5 * z - qx;
    precise REAL a = 1.0 - qx;
    res = a - (hz - (z * r - x * y));
  }
  return res;
}

REAL ppl_sin(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  if (abs(x) <= 7.85398163397448278999e-01) return ppl_kernel_sin(x, 0.0, 0);
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
  if (abs(x) <= 7.85398163397448278999e-01) return ppl_kernel_cos(x, 0.0);
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
  const REAL PI = 3.141592653589793116;
  precise REAL r = x - 2.0 * trunc(x * 0.5);  // x mod 2 with the sign of x, exact
  REAL ar = abs(r);
  REAL sg = r < 0.0 ? -1.0 : 1.0;
  if (ar == 0.0 || ar == 1.0) return sg * 0.0;
  if (ar < 0.25) return ppl_sin(PI * r);
  if (ar < 0.75) return sg * ppl_cos(PI * (0.5 - ar));
  if (ar < 1.25) return ppl_sin(PI * (sg - r));
  if (ar < 1.75) return -sg * ppl_cos(PI * (ar - 1.5));
  return ppl_sin(PI * (r - 2.0 * sg));
}

// cos(pi*x), exactly zero at half-integers.
REAL ppl_cospi(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return PPL_NAN;
  const REAL PI = 3.141592653589793116;
  REAL ar = abs(x - 2.0 * trunc(x * 0.5));  // |x| mod 2, exact
  if (ar == 0.5 || ar == 1.5) return 0.0;
  if (ar < 0.25) return ppl_cos(PI * ar);
  if (ar < 0.75) return ppl_sin(PI * (0.5 - ar));
  if (ar < 1.25) return -ppl_cos(PI * (1.0 - ar));
  if (ar < 1.75) return ppl_sin(PI * (ar - 1.5));
  return ppl_cos(PI * (2.0 - ar));
}

// ---- shaders/prelude/tanh.glsl
// tanh(x): fdlibm s_tanh.c, error < ~2 ulp. Built on expm1 so that small |x| keeps full relative
// accuracy: for |x| >= 1, tanh = 1 - 2/(expm1(2|x|) + 2); for |x| < 1, -t/(t + 2) with
// t = expm1(-2|x|); |x| >= 22 (9 for f32) is +-1 to working precision. Generic over REAL.

REAL ppl_tanh(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL z;
  if (ax >= PPL_TANH_SATURATE) {
    z = 1.0;
  } else if (ax < PPL_TANH_TINY) {
    return x;
  } else if (ax >= 1.0) {
    REAL t = ppl_expm1(2.0 * ax);
    z = 1.0 - 2.0 / (t + 2.0);
  } else {
    REAL t = ppl_expm1(-2.0 * ax);
    z = -t / (t + 2.0);
  }
  return x < 0.0 ? -z : z;
}

// ---- shaders/prelude/logistic.glsl
// sigmoid, softplus and log_sigmoid, written exactly as the CPU backend's formulas
// (packages/tensor/src/cpu/scalar.ts) so that both backends round the same way.
// Generic over REAL.

// 1/(1 + exp(-x)) without overflow: for x < 0 use e/(1 + e) with e = exp(x) <= 1. Both cases
// take e = exp(-|x|) (that is exp(-x) for x >= 0 and exp(x) below), so that a subgroup with
// lanes of both signs evaluates one exp, not one in each branch.
REAL ppl_sigmoid(REAL x) {
  REAL e = ppl_exp(-abs(x));
  return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);  // NaN: e is NaN, and so is the result
}

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for x > 0, log1p(exp(x)) otherwise; as
// in ppl_sigmoid, both are log1p(exp(-|x|)), computed once.
REAL ppl_softplus(REAL x) {
  REAL l = ppl_log1p(ppl_exp(-abs(x)));
  return x > 0.0 ? x + l : l;
}

// log(sigmoid(x)) = -softplus(-x).
REAL ppl_log_sigmoid(REAL x) { return -ppl_softplus(-x); }

// ---- shaders/prelude/atan2.glsl
// atan(x) and atan2(y, x): fdlibm s_atan.c and e_atan2.c, error < 1 ulp.
// atan: reduce |x| to [0, 7/16] with atan(x) = atan(c) + atan((x - c)/(1 + c x)) for
// c in {1/2, 1, 3/2, inf}, the table values atan(c) kept in two parts; odd minimax polynomial
// of degree 23. atan2 handles signs, zeros and infinities as C99/IEEE (= JS Math.atan2).
// Generic over REAL.

REAL ppl_atan(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax >= 7.378697629483820646e+19) {  // |x| >= 2^66: +-pi/2
    precise REAL h = 1.57079632679489655800e+00 + 6.12323399573676603587e-17;
    return x > 0.0 ? h : -h;
  }
  int id;
  precise REAL t;
  if (ax < 0.4375) {
    if (ax < 7.450580596923828125e-09) return x;  // |x| < 2^-27
    id = -1;
    t = x;
  } else if (ax < 0.6875) {
    id = 0;
    t = (2.0 * ax - 1.0) / (2.0 + ax);
  } else if (ax < 1.1875) {
    id = 1;
    t = (ax - 1.0) / (ax + 1.0);
  } else if (ax < 2.4375) {
    id = 2;
    t = (ax - 1.5) / (1.0 + 1.5 * ax);
  } else {
    id = 3;
    t = -1.0 / ax;
  }
  precise REAL z = t * t;
  precise REAL w = z * z;
  // Odd and even halves of sum_{i=0..10} aT[i] z^(i+1), as fdlibm splits them.
  precise REAL s1 = z * (3.33333333333329318027e-01 + w * (1.42857142725034663711e-01
      + w * (9.09088713343650656196e-02 + w * (6.66107313738753120669e-02
      + w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))));
  precise REAL s2 = w * (-1.99999999998764832476e-01 + w * (-1.11111104054623557880e-01
      + w * (-7.69187620504482999495e-02 + w * (-5.83357013379057348645e-02
      + w * -3.65315727442169155270e-02))));
  if (id < 0) {
    precise REAL r0 = t - t * (s1 + s2);
    return r0;
  }
  REAL hi = id == 0 ? 4.63647609000806093515e-01 : id == 1 ? 7.85398163397448278999e-01
          : id == 2 ? 9.82793723247329054082e-01 : 1.57079632679489655800e+00;
  REAL lo = id == 0 ? 2.26987774529616870924e-17 : id == 1 ? 3.06161699786838301793e-17
          : id == 2 ? 1.39033110312309984516e-17 : 6.12323399573676603587e-17;
  precise REAL r = hi - ((t * (s1 + s2) - lo) - t);
  return x < 0.0 ? -r : r;
}

REAL ppl_atan2(REAL y, REAL x) {
  const REAL PI = 3.14159265358979311600e+00;
  const REAL PI_LO = 1.22464679914735317720e-16;
  const REAL PIO2 = 1.57079632679489655800e+00;
  const REAL PIO4 = 7.85398163397448278999e-01;
  if (ppl_isnan(x) || ppl_isnan(y)) return PPL_NAN;
  // Sign bits, so that -0 counts as negative (atan2(+0, -0) = pi, atan2(-0, +0) = -0).
  bool yneg = ppl_signbit(y);
  bool xneg = ppl_signbit(x);
  if (y == 0.0) return xneg ? (yneg ? -PI : PI) : y;
  if (x == 0.0) return yneg ? -PIO2 : PIO2;
  if (ppl_isinf(x)) {
    if (ppl_isinf(y)) {
      REAL a = xneg ? 3.0 * PIO4 : PIO4;
      return yneg ? -a : a;
    }
    REAL b = xneg ? PI : 0.0;
    return yneg ? -b : b;
  }
  if (ppl_isinf(y)) return yneg ? -PIO2 : PIO2;
  REAL q = abs(y / x);
  REAL z = ppl_atan(q);  // |y/x| overflowing to inf gives pi/2, underflowing to 0 gives 0
  precise REAL res;
  if (!xneg) res = z;
  else res = PI - (z - PI_LO);
  return yneg ? -res : res;
}

// ---- shaders/prelude/pow.glsl
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
    m *= 0.5;
    k += 1;
  }
  precise REAL f = m - 1.0;  // exact
  REAL dh, dl;
  ppl_fast_two_sum(2.0, f, dh, dl);  // 2 + f = dh + dl exactly
  precise REAL sh = f / dh;
  REAL ph, pl;
  ppl_two_prod(sh, dh, ph, pl);
  precise REAL sl = (((f - ph) - pl) - sh * dl) / dh;  // s - sh, from the exact residual
  precise REAL z = sh * sh;
  precise REAL tail = 2.0 * sh * z * (0.33333333333333333333 + z * (0.2 + z * (0.14285714285714285714
      + z * (0.11111111111111111111 + z * (0.09090909090909090909 + z * (0.07692307692307692308
      + z * (0.06666666666666666667 + z * (0.05882352941176470588 + z * (0.05263157894736842105
      + z * (0.04761904761904761905 + z * (0.04347826086956521739 + z * 0.04)))))))))));
  REAL ah, al;
  ppl_fast_two_sum(2.0 * sh, 2.0 * sl + tail, ah, al);
  REAL dk = REAL(k);
  REAL bh, bl;
  ppl_two_sum(dk * PPL_LN2_HI, ah, bh, bl);  // dk * LN2_HI is exact
  precise REAL lo = bl + (al + dk * PPL_LN2_LO);
  ppl_fast_two_sum(bh, lo, lh, ll);
}

REAL ppl_pow(REAL x, REAL y) {
  if (ppl_isnan(y)) return PPL_NAN;
  if (y == 0.0) return 1.0;
  if (ppl_isnan(x)) return PPL_NAN;
  REAL ax = abs(x);
  if (ppl_isinf(y)) {
    if (ax == 1.0) return PPL_NAN;
    return ((ax > 1.0) == (y > 0.0)) ? PPL_INF : 0.0;
  }
  bool yint = floor(y) == y;
  bool yodd = yint && floor(y * 0.5) != y * 0.5;  // |y| >= 2^53 (2^24) is always even
  if (x == 0.0) {  // +-0: the sign survives only for odd integer y
    if (y > 0.0) return yodd ? x : 0.0;
    return (yodd && ppl_signbit(x)) ? -PPL_INF : PPL_INF;
  }
  if (ppl_isinf(x)) {
    if (x > 0.0) return y > 0.0 ? PPL_INF : 0.0;
    if (y > 0.0) return yodd ? -PPL_INF : PPL_INF;
    return yodd ? 1.0 / x : 0.0;  // -0 or +0
  }
  REAL sgn = 1.0;
  if (x < 0.0) {
    if (!yint) return PPL_NAN;
    if (yodd) sgn = -1.0;
  }
  if (ax == 1.0) return sgn;
  REAL lh, ll;
  ppl_log_dw(ax, lh, ll);
  REAL w0 = y * lh;
  // Far outside the exp range: decide before forming the exact product (which could overflow).
  if (w0 > 2.0 * PPL_EXP_OVERFLOW) return sgn * PPL_INF;
  if (w0 < 2.0 * PPL_EXP_UNDERFLOW) return sgn * 0.0;
  REAL wh, wl;
  ppl_two_prod(y, lh, wh, wl);
  precise REAL wlo = wl + y * ll;
  REAL eh, el;
  ppl_fast_two_sum(wh, wlo, eh, el);
  return sgn * ppl_exp_dw(eh, el);
}

// ---- shaders/prelude/erf.glsl
// erf and erfc: fdlibm s_erf.c (the scheme of W. J. Cody's rational approximations, as ported by
// stdlib, the CPU reference), error < 1 ulp; erfc keeps full relative accuracy in the right tail
// up to its underflow at x ~ 27 (f64). Intervals:
//   |x| < 0.84375:        erf = x + x*P(x^2)/Q(x^2)
//   0.84375 <= |x| < 1.25: erf = erx + P(s)/Q(s), s = |x| - 1
//   1.25 <= |x| < 28:      erfc = exp(-z^2 - 0.5625) * exp((z - x)(z + x) + R(1/x^2)/S(1/x^2)) / x,
//                          z = x with its low bits cleared so that z^2 is exact.
// Generic over REAL.

REAL ppl_erf_pp(REAL z) {
  return 1.28379167095512558561e-01 + z * (-0.3250421072470015 + z * (-0.02848174957559851
      + z * (-0.005770270296489442 + z * -0.000023763016656650163)));
}
REAL ppl_erf_qq(REAL z) {
  return 1.0 + z * (0.39791722395915535 + z * (0.0650222499887673 + z * (0.005081306281875766
      + z * (0.00013249473800432164 + z * -0.000003960228278775368))));
}
REAL ppl_erf_pa(REAL s) {
  return -2.36211856075265944077e-03 + s * (0.41485611868374833 + s * (-0.3722078760357013
      + s * (0.31834661990116175 + s * (-0.11089469428239668 + s * (0.035478304325618236
      + s * -0.002166375594868791)))));
}
REAL ppl_erf_qa(REAL s) {
  return 1.0 + s * (0.10642088040084423 + s * (0.540397917702171 + s * (0.07182865441419627
      + s * (0.12617121980876164 + s * (0.01363708391202905 + s * 0.011984499846799107)))));
}

// exp(-x^2 - 0.5625 + R/S) / x for 1.25 <= x < 28: the common tail of erf and erfc.
REAL ppl_erfc_tail(REAL ax) {
  REAL s = 1.0 / (ax * ax);
  REAL r;
  REAL q;
  if (ax < 2.857142857142857) {  // 1/0.35
    r = -9.86494403484714822705e-03 + s * (-0.6938585727071818 + s * (-10.558626225323291
        + s * (-62.375332450326006 + s * (-162.39666946257347 + s * (-184.60509290671104
        + s * (-81.2874355063066 + s * -9.814329344169145))))));
    q = 1.0 + s * (19.651271667439257 + s * (137.65775414351904 + s * (434.56587747522923
        + s * (645.3872717332679 + s * (429.00814002756783 + s * (108.63500554177944
        + s * (6.570249770319282 + s * -0.0604244152148581)))))));
  } else {
    r = -9.86494292470009928597e-03 + s * (-0.799283237680523 + s * (-17.757954917754752
        + s * (-160.63638485582192 + s * (-637.5664433683896 + s * (-1025.0951316110772
        + s * -483.5191916086514)))));
    q = 1.0 + s * (30.33806074348246 + s * (325.7925129965739 + s * (1536.729586084437
        + s * (3199.8582195085955 + s * (2553.0504064331644 + s * (474.52854120695537
        + s * -22.44095244658582))))));
  }
  REAL z = ppl_clear_low(ax);
  precise REAL d = (z - ax) * (z + ax);
  return ppl_exp(-z * z - 0.5625) * ppl_exp(d + r / q) / ax;
}

REAL ppl_erf(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL sg = x < 0.0 ? -1.0 : 1.0;
  if (ax < 0.84375) {
    if (ax < PPL_ERF_SMALL) return x + 1.28379167095512586316e-01 * x;
    REAL z = x * x;
    return x + x * (ppl_erf_pp(z) / ppl_erf_qq(z));
  }
  if (ax < 1.25) {
    REAL s = ax - 1.0;
    return sg * (8.45062911510467529297e-01 + ppl_erf_pa(s) / ppl_erf_qa(s));
  }
  if (ax >= 6.0) return sg;
  return sg * (1.0 - ppl_erfc_tail(ax));
}

REAL ppl_erfc(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax < 0.84375) {
    if (ax < 1.3877787807814457e-17) return 1.0 - x;  // |x| < 2^-56
    REAL z = x * x;
    REAL y = ppl_erf_pp(z) / ppl_erf_qq(z);
    if (x < 0.25) return 1.0 - (x + x * y);
    return 0.5 - (x * y + (x - 0.5));
  }
  if (ax < 1.25) {
    REAL s = ax - 1.0;
    REAL pq = ppl_erf_pa(s) / ppl_erf_qa(s);
    return x < 0.0 ? 1.0 + 8.45062911510467529297e-01 + pq
                      : 1.0 - 8.45062911510467529297e-01 - pq;
  }
  if (ax < 28.0) {
    if (x < -6.0) return 2.0;
    REAL t = ppl_erfc_tail(ax);
    return x < 0.0 ? 2.0 - t : t;
  }
  return x < 0.0 ? 2.0 : 0.0;
}

// ---- shaders/prelude/lgamma.glsl
// lgamma(x) = log|Gamma(x)|: fdlibm e_lgamma_r.c (as ported by stdlib's gammaln, the CPU
// reference), error < ~1 ulp away from the zeros at 1 and 2 and small absolute error near them.
// Intervals: [0, 2) by minimax approximations around 1, 2 and the minimum 1.4616 (so the
// zeros at 1 and 2 come out with full relative accuracy); [2, 8) by a rational approximation
// of lgamma(2 + f) and the recurrence; [8, 2^56) by Stirling's series; negative non-integers
// by the reflection lgamma(-x) = log(pi / |x sin(pi x)|) - lgamma(x) (sin(pi x) from ppl_sinpi).
// Poles (0 and negative integers) give +inf; +-inf give +-inf (as the CPU). Generic over REAL.

REAL ppl_lgamma(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return x;  // lgamma(-inf) = -inf, as the CPU reference
  if (x == 0.0) return PPL_INF;
  bool neg = x < 0.0;
  REAL ax = abs(x);
  if (ax < 1.3877787807814457e-17) return -ppl_log(ax);  // |x| < 2^-56
  REAL nadj = 0.0;
  if (neg) {
    if (ax >= PPL_ALL_INTEGERS) return PPL_INF;
    REAL t = ppl_sinpi(ax);
    if (t == 0.0) return PPL_INF;
    nadj = ppl_log(3.14159265358979311600e+00 / abs(t * ax));
  }
  if (ax == 1.0 || ax == 2.0) return neg ? nadj : 0.0;
  REAL r;
  const REAL YMIN = 1.461632144968362245;
  const REAL TC = 1.46163214496836224576e+00;
  if (ax < 2.0) {
    REAL y;
    int flg;
    if (ax <= 0.9) {
      r = -ppl_log(ax);
      if (ax >= YMIN - 1.0 + 0.27) { y = 1.0 - ax; flg = 0; }
      else if (ax >= YMIN - 1.0 - 0.27) { y = ax - (TC - 1.0); flg = 1; }
      else { y = ax; flg = 2; }
    } else {
      r = 0.0;
      if (ax >= YMIN + 0.27) { y = 2.0 - ax; flg = 0; }
      else if (ax >= YMIN - 0.27) { y = ax - TC; flg = 1; }
      else { y = ax - 1.0; flg = 2; }
    }
    if (flg == 0) {
      REAL z = y * y;
      REAL p1 = 7.72156649015328655494e-02 + z * (0.06735230105312927 + z * (0.007385550860814029
          + z * (0.0011927076318336207 + z * (0.00022086279071390839 + z * 0.000025214456545125733))));
      REAL p2 = z * (3.22467033424113591611e-01 + z * (0.020580808432516733 + z * (0.0028905138367341563
          + z * (0.0005100697921535113 + z * (0.00010801156724758394 + z * 0.000044864094961891516)))));
      REAL p = y * p1 + p2;
      r += p - 0.5 * y;
    } else if (flg == 1) {
      REAL z = y * y;
      REAL w = z * y;
      REAL p1 = 4.83836122723810047042e-01 + w * (-0.032788541075985965 + w * (0.006100538702462913
          + w * (-0.0014034646998923284 + w * 0.00031563207090362595)));
      REAL p2 = -1.47587722994593911752e-01 + w * (0.01797067508118204 + w * (-0.0036845201678113826
          + w * (0.000881081882437654 + w * -0.00031275416837512086)));
      REAL p3 = 6.46249402391333854778e-02 + w * (-0.010314224129834144 + w * (0.0022596478090061247
          + w * (-0.0005385953053567405 + w * 0.0003355291926355191)));
      REAL p = z * p1 - (-3.63867699703950536541e-18 - w * (p2 + y * p3));
      r += -1.21486290535849611461e-01 + p;
    } else {
      REAL p1 = y * (-7.72156649015328655494e-02 + y * (0.6328270640250934 + y * (1.4549225013723477
          + y * (0.9777175279633727 + y * (0.22896372806469245 + y * 0.013381091853678766)))));
      REAL p2 = 1.0 + y * (2.4559779371304113 + y * (2.128489763798934 + y * (0.7692851504566728
          + y * (0.10422264559336913 + y * 0.003217092422824239))));
      r += -0.5 * y + p1 / p2;
    }
  } else if (ax < 8.0) {
    int i = int(ax);
    REAL y = ax - REAL(i);
    REAL p = y * (-7.72156649015328655494e-02 + y * (0.21498241596060885 + y * (0.325778796408931
        + y * (0.14635047265246445 + y * (0.02664227030336386 + y * (0.0018402845140733772
        + y * 0.00003194753265841009))))));
    REAL q = 1.0 + y * (1.3920053346762105 + y * (0.7219355475671381 + y * (0.17193386563280308
        + y * (0.01864591917156529 + y * (0.0007779424963818936 + y * 0.000007326684307446256)))));
    r = 0.5 * y + p / q;
    REAL z = 1.0;  // lgamma(1 + s) = log(s) + lgamma(s)
    if (i >= 7) z *= y + 6.0;
    if (i >= 6) z *= y + 5.0;
    if (i >= 5) z *= y + 4.0;
    if (i >= 4) z *= y + 3.0;
    if (i >= 3) {
      z *= y + 2.0;
      r += ppl_log(z);
    }
  } else if (ax < 72057594037927936.0) {  // 2^56
    REAL t = ppl_log(ax);
    REAL z = 1.0 / ax;
    REAL y = z * z;
    REAL w = 4.18938533204672725052e-01 + z * (0.08333333333333297 + y * (-0.0027777777772877554
        + y * (0.0007936505586430196 + y * (-0.00059518755745034 + y * (0.0008363399189962821
        + y * -0.0016309293409657527)))));
    r = (ax - 0.5) * (t - 1.0) + w;
  } else {
    r = ax * (ppl_log(ax) - 1.0);
  }
  return neg ? nadj - r : r;
}

// ---- shaders/prelude/digamma.glsl
// digamma(x) = psi(x) = d/dx lgamma(x): the Boost scheme ported by stdlib (the CPU reference).
//   x >= 10:      psi(x) = log(x-1) + 1/(2(x-1)) - sum_k B_2k/(2k (x-1)^2k)  (asymptotic series)
//   1 <= x <= 2:  psi(x) = (x - x0) * (Y + P(x-1)/Q(x-1)), x0 = 1.46163... the positive root
//                 (x0 carried in three parts), so psi keeps full relative accuracy at its root;
//   other x > -1: the recurrence psi(x+1) = psi(x) + 1/x down or up into [1, 2];
//   x <= -1:      reflection psi(1-x) - psi(x) = pi cot(pi x) (computed as pi cospi/sinpi).
// Poles (0 and negative integers) give NaN, as the CPU reference. Generic over REAL.

REAL ppl_digamma_rational(REAL t) {
  // P/Q evaluated in t or, for |t| > 1, in 1/t (stdlib's evalrational); here t = x - 1 in [0, 1].
  REAL s1 = 0.25479851061131553 + t * (-0.3255503118680449 + t * (-0.6503185377089651
      + t * (-0.28919126444774784 + t * (-0.04525132144873906 + t * -0.002071332116774595))));
  REAL s2 = 1.0 + t * (2.076711702373047 + t * (1.4606242909763516 + t * (0.43593529692665967
      + t * (0.054151797245674226 + t * (0.0021284987017821146 + t * -5.578984132167551e-7)))));
  return s1 / s2;
}

REAL ppl_digamma(REAL x) {
  if (ppl_isnan(x) || x == 0.0) return PPL_NAN;
  if (ppl_isinf(x)) return x > 0.0 ? x : PPL_NAN;
  REAL tmp = 0.0;
  if (x <= -1.0) {
    x = 1.0 - x;
    REAL rem = x - floor(x);
    if (rem > 0.5) rem -= 1.0;
    if (rem == 0.0) return PPL_NAN;
    tmp = 3.14159265358979311600e+00 * ppl_cospi(rem) / ppl_sinpi(rem);
  }
  if (x >= 10.0) {
    REAL xm = x - 1.0;
    REAL z = 1.0 / (xm * xm);
    REAL p = 0.08333333333333333 + z * (-0.008333333333333333 + z * (0.003968253968253968
        + z * (-0.004166666666666667 + z * (0.007575757575757576 + z * (-0.021092796092796094
        + z * (0.08333333333333333 + z * -0.4432598039215686))))));
    return tmp + (ppl_log(xm) + 1.0 / (2.0 * xm) - z * p);
  }
  while (x > 2.0) {
    x -= 1.0;
    tmp += 1.0 / x;
  }
  while (x < 1.0) {
    tmp -= 1.0 / x;
    x += 1.0;
  }
  // x - x0 with x0 in three parts, subtracted in this order: `precise`, or the compiler folds
  // the three constants into one and the digits below the first part are lost.
  precise REAL g = x - PPL_DIGAMMA_ROOT1;  // the split is per type (real_f32.glsl, real_f64.glsl)
  g -= PPL_DIGAMMA_ROOT2;
  g -= PPL_DIGAMMA_ROOT3;
  REAL rr = ppl_digamma_rational(x - 1.0);
  return tmp + (g * 0.99558162689208984 + g * rr);
}

// ---- shaders/prelude/polygamma.glsl
// polygamma(n, x) = d^n/dx^n digamma(x) for n = 0..3 (n = 0 is ppl_digamma; other n give NaN).
// For x > 0: the recurrence psi_n(x) = psi_n(x+1) + (-1)^(n+1) n!/x^(n+1) shifts x to >= 16
// (a sum of same-signed terms, so no cancellation), then the asymptotic series
//   (-1)^(n+1) psi_n(x) ~ (n-1)!/x^n * (1 + n/(2x) + sum_{k=1..10} c_k(n)/x^(2k)),
//   c_k(n) = B_2k (2k+n-1)! / ((2k)! (n-1)!),
// whose first omitted term is below 1e-19 relative at x = 16. Relative error ~1e-15 (f64).
// For x < 0 (non-integer): reflection, from differentiating psi(1-x) - psi(x) = pi cot(pi x):
//   psi_1(x) = -psi_1(1-x) + pi^2 / sin^2(pi x)
//   psi_2(x) =  psi_2(1-x) - 2 pi^3 cos(pi x) / sin^3(pi x)
//   psi_3(x) = -psi_3(1-x) + 2 pi^4 (2 cos^2(pi x) + 1) / sin^4(pi x)
// with sin(pi x), cos(pi x) from ppl_sinpi/ppl_cospi (exact reduction). At the poles (0 and
// negative integers) the values follow the CPU reference: NaN for n = 1, +inf for n = 2 and 3.
// (For tiny x > 0 the CPU reference returns +inf for n = 2; the true limit, returned here, is -inf.)
// Generic over REAL.

REAL ppl_polygamma_pos(int n, REAL x) {
  REAL acc = 0.0;
  while (x < 16.0) {
    REAL inv = 1.0 / x;
    REAL p = inv * inv;  // 1/x^2
    if (n >= 2) p *= inv;
    if (n >= 3) p *= inv;
    acc += p;
    x += 1.0;
  }
  REAL inv = 1.0 / x;
  REAL z = inv * inv;
  REAL s;
  REAL lead;  // (n-1)!/x^n
  REAL nfact;  // n!
  if (n == 1) {
    s = z * (0.16666666666666666 + z * (-0.033333333333333333 + z * (0.023809523809523808
        + z * (-0.033333333333333333 + z * (0.07575757575757576 + z * (-0.2531135531135531
        + z * (1.1666666666666667 + z * (-7.0921568627450977 + z * (54.971177944862156
        + z * -529.12424242424242)))))))));
    lead = inv;
    nfact = 1.0;
  } else if (n == 2) {
    s = z * (0.5 + z * (-0.16666666666666666 + z * (0.16666666666666666
        + z * (-0.29999999999999999 + z * (0.83333333333333337 + z * (-3.2904761904761903
        + z * (17.5 + z * (-120.56666666666666 + z * (1044.452380952381
        + z * -11111.609090909091)))))))));
    lead = z;
    nfact = 2.0;
  } else {
    s = z * (1.0 + z * (-0.5 + z * (0.66666666666666663 + z * (-1.5 + z * (5.0
        + z * (-23.033333333333335 + z * (140.0 + z * (-1085.0999999999999
        + z * (10444.523809523809 + z * -122227.7)))))))));
    lead = 2.0 * z * inv;
    nfact = 6.0;
  }
  REAL asym = lead * (1.0 + REAL(n) * 0.5 * inv + s);
  REAL v = nfact * acc + asym;
  return (n == 2) ? -v : v;
}

REAL ppl_polygamma(int n, REAL x) {
  if (n == 0) return ppl_digamma(x);
  if (n < 0 || n > 3 || ppl_isnan(x)) return PPL_NAN;
  if (x > 0.0) return ppl_isinf(x) ? (n == 2 ? -0.0 : 0.0) : ppl_polygamma_pos(n, x);
  if (ppl_isinf(x)) return PPL_NAN;
  if (floor(x) == x) return n == 1 ? PPL_NAN : PPL_INF;
  const REAL PI = 3.14159265358979311600e+00;
  REAL sp = ppl_sinpi(x);
  REAL cp = ppl_cospi(x);
  REAL reflected = ppl_polygamma_pos(n, 1.0 - x);
  REAL pis = PI / sp;
  REAL pis2 = pis * pis;
  if (n == 1) return -reflected + pis2;
  if (n == 2) return reflected - 2.0 * pis2 * pis * cp;
  return -reflected + 2.0 * pis2 * pis2 * (2.0 * cp * cp + 1.0);
}

REAL ppl_trigamma(REAL x) { return ppl_polygamma(1, x); }

// ---- shaders/prelude/cdf.glsl
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
#define PPL_LENTZ_TINY 1.0e-30

// Acklam's rational approximation of the normal quantile for 0 < p <= 1/2 (relative error
// 1.2e-9), refined by one Halley step on Phi(x) - p, which gives full precision in f64. The
// step is skipped for subnormal p, where exp(x^2/2) would overflow.
REAL ppl_inv_phi_lower(REAL p) {
  REAL x;
  if (p < 0.02425) {
    REAL q = sqrt(-2.0 * ppl_log(p));
    x = (((((-7.784894002430293e-03 * q + -3.223964580411365e-01) * q + -2.400758277161838e+00) * q
        + -2.549732539343734e+00) * q + 4.374664141464968e+00) * q + 2.938163982698783e+00)
        / ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q + 2.445134137142996e+00) * q
        + 3.754408661907416e+00) * q + 1.0);
  } else {
    REAL q = p - 0.5;
    REAL r = q * q;
    x = (((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r + -2.759285104469687e+02) * r
        + 1.383577518672690e+02) * r + -3.066479806614716e+01) * r + 2.506628277459239e+00) * q
        / (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r + -1.556989798598866e+02) * r
        + 6.680131188771972e+01) * r + -1.328068155288572e+01) * r + 1.0);
  }
  if (p < PPL_MIN_NORMAL) return x;
  REAL e = 0.5 * ppl_erfc(-x * 0.70710678118654752440) - p;
  REAL u = e * 2.50662827463100050242 * ppl_exp(0.5 * x * x);
  return x - u / (1.0 + 0.5 * x * u);
}

REAL ppl_inv_phi(REAL p) {
  if (ppl_isnan(p) || p < 0.0 || p > 1.0) return PPL_NAN;
  if (p == 0.0) return -PPL_INF;
  if (p == 1.0) return PPL_INF;
  // 1 - p is exact for p >= 1/2, so the upper half reuses the lower tail without cancellation.
  return p > 0.5 ? -ppl_inv_phi_lower(1.0 - p) : ppl_inv_phi_lower(p);
}

// log(x^a e^-x / Gamma(a)): the prefactor of the series and of the continued fraction.
REAL ppl_gamma_log_prefactor(REAL a, REAL x) {
  return a * ppl_log(x) - x - ppl_lgamma(a);
}

// P(a, x) = x^a e^-x / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n)), used for x < a + 1, where the
// terms fall at least geometrically after n ~ x - a.
REAL ppl_gamma_p_series(REAL a, REAL x) {
  REAL ap = a;
  REAL term = 1.0 / a;
  REAL sum = term;
  for (int n = 0; n < 10000; n++) {
    ap += 1.0;
    term *= x / ap;
    sum += term;
    if (abs(term) < abs(sum) * PPL_EPS) break;
  }
  return sum * ppl_exp(ppl_gamma_log_prefactor(a, x));
}

// Q(a, x) by Legendre's continued fraction (modified Lentz), used for x >= a + 1.
REAL ppl_gamma_q_fraction(REAL a, REAL x) {
  REAL b = x + 1.0 - a;
  REAL c = 1.0 / PPL_LENTZ_TINY;
  REAL d = 1.0 / b;
  REAL h = d;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    b += 2.0;
    d = an * d + b;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = b + an / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - 1.0) < PPL_EPS) break;
  }
  return ppl_exp(ppl_gamma_log_prefactor(a, x)) * h;
}

REAL ppl_gamma_p(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return 0.0;
  if (ppl_isinf(x)) return 1.0;
  return x < a + 1.0 ? ppl_gamma_p_series(a, x) : 1.0 - ppl_gamma_q_fraction(a, x);
}

REAL ppl_gamma_q(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return 1.0;
  if (ppl_isinf(x)) return 0.0;
  return x < a + 1.0 ? 1.0 - ppl_gamma_p_series(a, x) : ppl_gamma_q_fraction(a, x);
}

// dP(a, x)/da (see packages/tensor/src/cpu/special.ts, gammaPDa): below x = a + 1 the series of P
// differentiated term by term, P (log x - psi(a+1)) - x^a e^-x / Gamma(a+1) sum_n s_n H_n with
// s_n = x^n / ((a+1)...(a+n)) and H_n = sum_{k<=n} 1/(a+k); above, -dQ/da from Q's continued
// fraction differentiated in a alongside its value (forward mode through the Lentz steps).
REAL ppl_gamma_p_da(REAL a, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(x) || !(a > 0.0) || x < 0.0) return PPL_NAN;
  if (x == 0.0 || ppl_isinf(x)) return 0.0;
  REAL logx = ppl_log(x);
  if (x < a + 1.0) {
    REAL s = 1.0;
    REAL sum = 1.0;
    REAL hn = 0.0;
    REAL sumH = 0.0;
    for (int n = 1; n < 10000; n++) {
      hn += 1.0 / (a + REAL(n));
      s *= x / (a + REAL(n));
      sum += s;
      sumH += s * hn;
      if (s < sum * PPL_EPS && s * hn < sumH * PPL_EPS) break;
    }
    REAL pref = ppl_exp(a * logx - x - ppl_lgamma(a + 1.0));
    return pref * (sum * (logx - ppl_digamma(a + 1.0)) - sumH);
  }
  REAL b = x + 1.0 - a;
  REAL db = -1.0;
  REAL c = 1.0 / PPL_LENTZ_TINY;
  REAL dc = 0.0;
  REAL d = 1.0 / b;
  REAL dd = -db / (b * b);
  REAL h = d;
  REAL dh = dd;
  for (int i = 1; i < 10000; i++) {
    REAL an = -REAL(i) * (REAL(i) - a);
    REAL dan = REAL(i);
    b += 2.0;
    REAL raw = an * d + b;
    REAL draw = dan * d + an * dd + db;
    if (abs(raw) < PPL_LENTZ_TINY) { raw = PPL_LENTZ_TINY; draw = 0.0; }
    REAL nc = b + an / c;
    REAL dnc = db + (dan - an * dc / c) / c;  // d(an/c)/da, without squaring c (which starts at 1/tiny)
    if (abs(nc) < PPL_LENTZ_TINY) { nc = PPL_LENTZ_TINY; dnc = 0.0; }
    c = nc;
    dc = dnc;
    d = 1.0 / raw;
    dd = -draw / (raw * raw);
    REAL del = d * c;
    REAL ddel = dd * c + d * dc;
    REAL ndh = dh * del + h * ddel;
    bool done = abs(del - 1.0) < PPL_EPS && abs(ndh - dh) <= PPL_EPS * abs(ndh);
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
  REAL qap = a + 1.0;
  REAL qam = a - 1.0;
  REAL c = 1.0;
  REAL d = 1.0 - qab * x / qap;
  if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
  d = 1.0 / d;
  REAL h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = 2.0 * rm;
    REAL aa = rm * (b - rm) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = 1.0 + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + rm) * (qab + rm) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (abs(d) < PPL_LENTZ_TINY) d = PPL_LENTZ_TINY;
    c = 1.0 + aa / c;
    if (abs(c) < PPL_LENTZ_TINY) c = PPL_LENTZ_TINY;
    d = 1.0 / d;
    REAL del = d * c;
    h *= del;
    if (abs(del - 1.0) < PPL_EPS) break;
  }
  return h;
}

REAL ppl_betainc(REAL a, REAL b, REAL x) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > 0.0) || !(b > 0.0) || x < 0.0 || x > 1.0) {
    return PPL_NAN;
  }
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  // log(x^a (1-x)^b / B(a, b))
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return ppl_exp(lf) * ppl_beta_fraction(a, b, x) / a;
  return 1.0 - ppl_exp(lf) * ppl_beta_fraction(b, a, 1.0 - x) / b;
}

// Dual numbers (value, d/da, d/db) for differentiating the beta continued fraction in its shapes.
REAL3 ppl_dual_mul(REAL3 u, REAL3 v) { return REAL3(u.x * v.x, u.x * v.y + u.y * v.x, u.x * v.z + u.z * v.x); }
REAL3 ppl_dual_div(REAL3 u, REAL3 v) {
  REAL q = u.x / v.x;
  return REAL3(q, (u.y - q * v.y) / v.x, (u.z - q * v.z) / v.x);
}
REAL3 ppl_dual_guard(REAL3 u) { return abs(u.x) < PPL_LENTZ_TINY ? REAL3(PPL_LENTZ_TINY, 0.0, 0.0) : u; }

// ppl_beta_fraction on dual numbers of its shapes a and b (forward mode through the Lentz steps),
// run until the value and both derivatives have settled.
REAL3 ppl_beta_fraction_dual(REAL a, REAL b, REAL x) {
  REAL3 A = REAL3(a, 1.0, 0.0);
  REAL3 B = REAL3(b, 0.0, 1.0);
  REAL3 one = REAL3(1.0, 0.0, 0.0);
  REAL3 qab = REAL3(a + b, 1.0, 1.0);
  REAL3 qap = A + one;
  REAL3 qam = A - one;
  REAL3 c = one;
  REAL3 d = ppl_dual_div(one, ppl_dual_guard(one - ppl_dual_div(qab * x, qap)));
  REAL3 h = d;
  for (int m = 1; m < 10000; m++) {
    REAL rm = REAL(m);
    REAL m2 = 2.0 * rm;
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
    if (abs(del.x - 1.0) < PPL_EPS && settled) break;
  }
  return h;
}

// dI_x(a, b)/da (wrt = 0) or /db (wrt = 1): the prefactor x^a (1-x)^b / B(a, b) through digamma and
// the continued fraction through its dual, on the side where it converges (as ppl_betainc).
REAL ppl_betainc_grad(REAL a, REAL b, REAL x, int wrt) {
  if (ppl_isnan(a) || ppl_isnan(b) || ppl_isnan(x) || !(a > 0.0) || !(b > 0.0) || x < 0.0 || x > 1.0) {
    return PPL_NAN;
  }
  if (x == 0.0 || x == 1.0) return 0.0;
  REAL lf = ppl_lgamma(a + b) - ppl_lgamma(a) - ppl_lgamma(b) + a * ppl_log(x) + b * ppl_log1p(-x);
  REAL psab = ppl_digamma(a + b);
  REAL lfa = psab - ppl_digamma(a) + ppl_log(x);
  REAL lfb = psab - ppl_digamma(b) + ppl_log1p(-x);
  REAL f = ppl_exp(lf);
  if (x < (a + 1.0) / (a + b + 2.0)) {
    REAL3 h = ppl_beta_fraction_dual(a, b, x);
    return wrt == 0 ? f * (lfa * h.x / a + h.y / a - h.x / (a * a)) : f * (lfb * h.x / a + h.z / a);
  }
  // cf(b, a, 1 - x): its first shape is b (the .y part), its second a (.z).
  REAL3 h = ppl_beta_fraction_dual(b, a, 1.0 - x);
  return wrt == 0 ? -f * (lfa * h.x / b + h.z / b) : -f * (lfb * h.x / b + h.y / b - h.x / (b * b));
}

// (1/2pi) int_0^a exp(-h^2 (1+t^2)/2) / (1+t^2) dt for h >= 0, 0 <= a <= 1, by 32-point
// Gauss-Legendre over the part of [0, a] where the integrand is above exp(-50) of its value at 0.
REAL ppl_owens_t_quadrature(REAL h, REAL a) {
  const REAL nodes[16] = REAL[16](0.048307665687738324, 0.1444719615827965, 0.23928736225213706, 0.33186860228212767, 0.42135127613063533, 0.5068999089322294, 0.5877157572407623, 0.6630442669302152, 0.7321821187402897, 0.7944837959679424, 0.84936761373257, 0.8963211557660521, 0.9349060759377397, 0.9647622555875064, 0.9856115115452684, 0.9972638618494816);
  const REAL weights[16] = REAL[16](0.09654008851472766, 0.09563872007927471, 0.09384439908080451, 0.09117387869576378, 0.08765209300440378, 0.08331192422694671, 0.07819389578707023, 0.07234579410884834, 0.06582222277636168, 0.058684093478535565, 0.05099805926237609, 0.042835898022226836, 0.034273862913021765, 0.025392065309262024, 0.016274394730905743, 0.007018610009470506);
  REAL u = h * a > 10.0 ? 10.0 / h : a;
  REAL hw = 0.5 * u;
  REAL s = 0.0;
  for (int k = 0; k < 16; k++) {
    REAL t1 = hw * (1.0 - nodes[k]);
    REAL t2 = hw * (1.0 + nodes[k]);
    REAL q1 = 1.0 + t1 * t1;
    REAL q2 = 1.0 + t2 * t2;
    s += weights[k] * (ppl_exp(-0.5 * h * h * q1) / q1 + ppl_exp(-0.5 * h * h * q2) / q2);
  }
  return s * hw * 0.15915494309189533577;  // 1 / (2 pi)
}

// T is even in h and odd in a; for |a| > 1, T(h, a) = Q(h)/2 + Q(ah)/2 - Q(h) Q(ah) - T(ah, 1/a)
// with upper normal tails Q (which do not cancel for large h) maps the integral onto [0, 1].
REAL ppl_owens_t(REAL h, REAL a) {
  if (ppl_isnan(h) || ppl_isnan(a)) return PPL_NAN;
  REAL sg = a < 0.0 ? -1.0 : 1.0;
  REAL aa = abs(a);
  REAL ah = abs(h);
  if (aa == 0.0 || ppl_isinf(ah)) return 0.0;
  if (aa <= 1.0) return sg * ppl_owens_t_quadrature(ah, aa);
  if (ah == 0.0) return sg * ppl_atan(aa) * 0.15915494309189533577;
  REAL qh = 0.5 * ppl_erfc(ah * 0.70710678118654752440);
  REAL qah = 0.5 * ppl_erfc(aa * ah * 0.70710678118654752440);
  REAL rest = ppl_isinf(aa) ? 0.0 : ppl_owens_t_quadrature(aa * ah, 1.0 / aa);
  return sg * (0.5 * qh + 0.5 * qah - qh * qah - rest);
}

#undef PPL_LENTZ_TINY

// ---- shaders/prelude/normal.glsl
// Uniform and standard normal variates from one Philox block (x0, x1, x2, x3), as
// packages/ppl/src/random/streams.ts: u0 = uniform(x0, x1), u1 = uniform(x2, x3) and the
// Box-Muller pair n0 = r cos(2 pi u1), n1 = r sin(2 pi u1), r = sqrt(-2 log u0).
// f64: uniforms are bit-exact; normals use the fdlibm log/cos/sin ports (the algorithms JS
// Math uses), so they match the CPU to the last bit wherever the device rounds IEEE-exactly.
// f32: uniforms are the f64 ones correctly rounded to float (see ppl_uniform_f32); normals are
// computed in float, within a few float ulp of the f64 ones. Generic over REAL.

REAL PPL_SFX(ppl_uniform0)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.x, w.y); }
REAL PPL_SFX(ppl_uniform1)(uvec4 w) { return PPL_SFX(ppl_uniform)(w.z, w.w); }

REAL PPL_SFX(ppl_box_muller_radius)(uvec4 w) {
  return sqrt(-2.0 * ppl_log(PPL_SFX(ppl_uniform)(w.x, w.y)));
}
REAL PPL_SFX(ppl_normal0)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_cos(6.283185307179586 * PPL_SFX(ppl_uniform)(w.z, w.w));
}
REAL PPL_SFX(ppl_normal1)(uvec4 w) {
  return PPL_SFX(ppl_box_muller_radius)(w) * ppl_sin(6.283185307179586 * PPL_SFX(ppl_uniform)(w.z, w.w));
}

// ---- shaders/prelude/real_end.glsl
// Ends one instantiation of the generic prelude files (see real_f64.glsl).
#undef REAL
#undef PPL_SFX
#undef PPL_NAN
#undef PPL_INF
#undef PPL_LN2_HI
#undef PPL_LN2_LO
#undef PPL_EXP_OVERFLOW
#undef PPL_EXP_UNDERFLOW
#undef PPL_EXP_TINY
#undef PPL_EXPM1_SATURATE
#undef PPL_EXPM1_TINY
#undef PPL_EXPM1_KSPLIT
#undef PPL_TANH_SATURATE
#undef PPL_TANH_TINY
#undef PPL_ERF_SMALL
#undef PPL_ALL_INTEGERS
#undef PPL_SPLITTER
#undef PPL_EPS
#undef PPL_MIN_NORMAL
#undef REAL3
#undef PPL_DIGAMMA_ROOT1
#undef PPL_DIGAMMA_ROOT2
#undef PPL_DIGAMMA_ROOT3

void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 64) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 4096) return;
  float t0 = b0.v[((clamp(((u)%4-1), 0, 2))*1024+(u)/4)];
  float t1 = t0;
  float t2 = b1.v[(((u)/4)*4+(1+clamp(((u)%4-1), 0, 2)))];
  float t3 = t2;
  float t4 = (t3/2.50000000);
  float t5 = (t4*2.00000000);
  float t6 = ((-0.500000000)*t5);
  float t7 = (t6/2.50000000);
  float t8 = (t1+t7);
  float t9 = ((((u)%4-1) >= 0 && ((u)%4-1) < 3) ? t8 : 0.00000000);
  float t10 = b2.v[(u)/4];
  float t11 = b1.v[((u)/4)*4];
  float t12 = t11;
  float t13 = t12;
  float t14 = (t13/2.50000000);
  float t15 = (t14*2.00000000);
  float t16 = ((-0.500000000)*t15);
  float t17 = (t16/2.50000000);
  float t18 = (t10+t17);
  float t19 = t18;
  float t20 = (((u)%4 >= 0 && (u)%4 < 1) ? t19 : 0.00000000);
  b3.v[u] = (t9+t20);
}
