// Type header for the f64 instantiation of the prelude.
//
// The generic prelude files are written once against REAL (literals as R(1.5), which
// packages/vulkan/src/prelude.ts rewrites to 1.5 or 1.5LF); the prelude
// is assembled as [real_f32.glsl, generic files, real_end.glsl, real_f64.glsl, generic files,
// real_end.glsl], so every ppl_* function exists as an overload for float and for double.
// This file also holds the few primitives that depend on the bit layout of a double.

#define REAL double
#define PPL_SFX(name) name##_f64

// Type-dependent thresholds of the fdlibm-derived algorithms (values from fdlibm / stdlib).
#define PPL_LN2_HI R(6.93147180369123816490e-01)     // 0x3FE62E42 FEE00000: k*LN2_HI exact for |k| < 2^11
#define PPL_LN2_LO R(1.90821492927058770002e-10)     // ln2 - LN2_HI
#define PPL_EXP_OVERFLOW R(7.09782712893383973096e+02)  // above: exp(x) = inf
#define PPL_EXP_UNDERFLOW R(-7.45133219101941108420e+02) // below: exp(x) = 0
#define PPL_EXP_TINY R(3.7252902984619140625e-09)       // 2^-28: exp(x) = 1 + x
#define PPL_EXPM1_SATURATE R(3.88162421113569373274e+01) // 56*ln2: expm1(-x) = -1
#define PPL_EXPM1_TINY R(5.5511151231257827e-17)         // 2^-54: expm1(x) = x
#define PPL_EXPM1_KSPLIT 20                              // fdlibm: k < 20 uses 1 - 2^-k exactly
#define PPL_TANH_SATURATE R(22.0)
#define PPL_TANH_TINY R(2.7755575615628914e-17)          // 2^-55
#define PPL_ERF_SMALL R(3.7252902984619140625e-09)       // 2^-28
#define PPL_ALL_INTEGERS R(4503599627370496.0)           // 2^52: every |x| above is an integer
#define PPL_SPLITTER R(134217729.0)                      // 2^27 + 1, Veltkamp splitting
#define PPL_EPS R(1.1102230246251565e-16)                // 2^-53, half an ulp of 1: the series' and fractions' stopping test
#define PPL_MIN_NORMAL R(2.2250738585072014e-308)        // 2^-1022
#define REAL3 dvec3                                      // a dual number (value and two partial derivatives)
// The positive root of digamma, x0 = 1.46163214496836234126..., in three parts (Boost's split).
#define PPL_DIGAMMA_ROOT1 R(1.4616321446374059)           // 1569415565 / 2^30
#define PPL_DIGAMMA_ROOT2 R(3.3095646882752572e-10)       // 381566830 / 2^60
#define PPL_DIGAMMA_ROOT3 R(9.016312093258695918615325266959189453125e-20)

double ppl_nan_f64() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
double ppl_inf_f64() { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }
#define PPL_NAN ppl_nan_f64()
#define PPL_INF ppl_inf_f64()

// Bit tests instead of isnan/isinf so that no compiler assumption about NaNs can remove them.
bool ppl_isnan(double x) {
  uvec2 w = unpackDouble2x32(x);
  uint hi = w.y & 0x7fffffffu;
  return hi > 0x7ff00000u || (hi == 0x7ff00000u && w.x != 0u);
}
bool ppl_isinf(double x) {
  uvec2 w = unpackDouble2x32(x);
  return (w.y & 0x7fffffffu) == 0x7ff00000u && w.x == 0u;
}

// Sign bit, which also tells -0 from +0.
bool ppl_signbit(double x) { return (unpackDouble2x32(x).y >> 31) != 0u; }

// 2^e for e in [-1022, 1023], built from its bits.
double ppl_exp2i_f64(int e) { return packDouble2x32(uvec2(0u, uint(e + 1023) << 20)); }

// y * 2^k for k in [-1080, 1030]: two exact power-of-two factors, so at most one rounding
// (the one into the subnormal range) and no spurious overflow for k = 1024.
double ppl_scale(double y, int k) {
  int k1 = k / 2;
  precise double t = y * ppl_exp2i_f64(k1);
  precise double r = t * ppl_exp2i_f64(k - k1);
  return r;
}

// For finite x > 0: returns xm in [1, 2) and k with x = xm * 2^k, and the top 20 bits of the
// significand (the fdlibm "hx & 0xfffff"), which fdlibm's log uses to pick its formulas.
double ppl_normalize(double x, out int k, out int hx) {
  int k0 = 0;
  uvec2 w = unpackDouble2x32(x);
  if (w.y < 0x00100000u) {  // subnormal: scale by 2^54 first
    w = unpackDouble2x32(x * R(18014398509481984.0));
    k0 = -54;
  }
  k = k0 + int(w.y >> 20) - 1023;
  hx = int(w.y & 0x000fffffu);
  return packDouble2x32(uvec2(w.x, (w.y & 0x000fffffu) | 0x3ff00000u));
}

// x with the low 32 significand bits cleared: a "pseudo-single" value whose square is exact
// (fdlibm's SET_LOW_WORD(x, 0), used by erf and the cosine kernel).
double ppl_clear_low(double x) { return packDouble2x32(uvec2(0u, unpackDouble2x32(x).y)); }

// Biased exponent field of x.
int ppl_biased_exponent(double x) { return int((unpackDouble2x32(x).y >> 20) & 0x7ffu); }

// x = n*pi/2 + (y0 + y1), |y0 + y1| <= ~pi/4: fdlibm __ieee754_rem_pio2, medium case
// (Cody-Waite with pi/2 in 33+33+33+53 bits, extra steps only when cancellation demands them).
// Exact for |x| < 2^19*pi/2 (~8.2e5); beyond that n*PIO2_1 is no longer exact and the result
// degrades gradually (the Payne-Hanek branch of fdlibm is not ported).
int ppl_rem_pio2(double x, out double y0, out double y1) {
  const double INVPIO2 = 6.36619772367581382433e-01LF;
  const double PIO2_1 = 1.57079632673412561417e+00LF;
  const double PIO2_1T = 6.07710050650619224932e-11LF;
  const double PIO2_2 = 6.07710050630396597660e-11LF;
  const double PIO2_2T = 2.02226624879595063154e-21LF;
  const double PIO2_3 = 2.02226624871116645580e-21LF;
  const double PIO2_3T = 8.47842766036889956997e-32LF;
  double t = abs(x);
  if (t <= 7.85398163397448278999e-01LF) { y0 = x; y1 = 0.0LF; return 0; }
  int n = int(t * INVPIO2 + 0.5LF);
  double fn = double(n);
  precise double r = t - fn * PIO2_1;
  precise double w = fn * PIO2_1T;
  precise double a = r - w;
  int j = ppl_biased_exponent(t);
  if (j - ppl_biased_exponent(a) > 16) {  // 2nd iteration, good to 118 bits
    precise double u = r;
    w = fn * PIO2_2;
    r = u - w;
    w = fn * PIO2_2T - ((u - r) - w);
    a = r - w;
    if (j - ppl_biased_exponent(a) > 49) {  // 3rd iteration, 151 bits
      u = r;
      w = fn * PIO2_3;
      r = u - w;
      w = fn * PIO2_3T - ((u - r) - w);
      a = r - w;
    }
  }
  precise double b = (r - a) - w;
  if (x < 0.0LF) { y0 = -a; y1 = -b; return -n; }
  y0 = a; y1 = b;
  return n;
}

// Uniform double in (0, 1) from two Philox words, exactly as packages/ppl/src/random/variates.ts:
// u = ((hi >> 12) * 2^32 + lo + 0.5) * 2^-52; every step is exact.
double ppl_uniform_f64(uint hi, uint lo) {
  return double(hi >> 12) * 9.5367431640625e-07LF + double(lo) * 2.220446049250313e-16LF
       + 1.1102230246251565e-16LF;
}
