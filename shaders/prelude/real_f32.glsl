// Type header for the f32 instantiation of the prelude (see real_f64.glsl for the scheme).
// Same algorithms as f64, with single-precision thresholds and splits (fdlibm's *f variants),
// except exp, log and log1p, which have float forms of their own (exp.glsl, log.glsl).

#define REAL float
#define PPL_REAL_F32                      // the float instantiation: exp, log and log1p have float versions
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
