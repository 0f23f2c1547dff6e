// log(x) and log1p(x): fdlibm e_log.c and s_log1p.c (as in V8, so f64 log matches JS Math.log),
// error < 1 ulp. Method: x = 2^k * (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2));
// log(1 + f) = f - f^2/2 + s*(f^2/2 + R(z)) with s = f/(2 + f), z = s^2 and R a degree-14
// minimax polynomial (the atanh series 2s + 2s^3/3 + ... rearranged); k*ln2 added in two parts.
// log1p additionally carries the rounding error of 1 + x as a correction c/u.
// Generic over REAL, with float forms of log and log1p of their own (PPL_REAL_F32, below);
// temporaries are `precise` (exact operation order matters).

#ifdef PPL_REAL_F32
// float: u = 2^k * m with m in [sqrt(2)/2, sqrt(2)) by adding the bits of 1 - sqrt(2)/2's offset
// (0x3f800000 - 0x3f3504f3) to u's, f = m - 1 (exact), and log(1 + f) = f - (f^2/2 - s*(f^2/2 + R))
// with s = f/(2 + f), z = s^2 and R = 2z/3 + 2z^2/5 + ... + 2z^5/11 (the atanh series; the next
// term is under 2^-30 of the result), k*ln2 added in two parts and c, the rounding error of the
// argument relative to it, added last: fdlibm's log1pf without its branches, under 1 ulp.
float ppl_log_f32_reduced(float u, int k0, float c) {
  uint bm = floatBitsToUint(u) + 0x004afb0du;
  int k = k0 + int(bm >> 23) - 127;
  precise float f = uintBitsToFloat((bm & 0x007fffffu) + 0x3f3504f3u) - 1.0;
  precise float s = f / (2.0 + f);
  precise float z = s * s;
  precise float r = z * fma(z, fma(z, fma(z, fma(z, 1.81818181818181818182e-01, 2.22222222222222222222e-01),
      2.85714285714285714286e-01), 4.0e-01), 6.66666666666666666667e-01);
  precise float hfsq = 0.5 * f * f;
  float dk = float(k);
  precise float res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * PPL_LN2_LO + c))) - f);
  return res;
}

float ppl_log(float x) {
  if (ppl_isnan(x) || x < 0.0) return PPL_NAN;
  if (x == 0.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  // A subnormal (where the device keeps them) is scaled by 2^25 first.
  bool sub = x < PPL_MIN_NORMAL;
  return ppl_log_f32_reduced(sub ? x * 33554432.0 : x, sub ? -25 : 0, 0.0);
}

float ppl_log1p(float x) {
  if (ppl_isnan(x) || x < -1.0) return PPL_NAN;
  if (x == -1.0) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  // u = 1 + x rounded (a normal float: at least 2^-24), and c = (1 + x - u)/u, the part of the
  // argument u lost (none past 2^23, where x is an integer and u - x is exact).
  precise float u = 1.0 + x;
  precise float c = (u >= 2.0) ? 1.0 - (u - x) : x - (u - 1.0);
  c = x < PPL_ALL_INTEGERS ? c / u : 0.0;
  return ppl_log_f32_reduced(u, 0, c);
}
#else
REAL ppl_log(REAL x) {
  if (ppl_isnan(x) || x < R(0.0)) return PPL_NAN;
  if (x == R(0.0)) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  int k;
  int hx;
  REAL m = ppl_normalize(x, k, hx);  // x = m * 2^k, m in [1, 2); hx = top 20 bits of m - 1
  // fdlibm: (hx + 0x95f64) & 0x100000 is set when m >= ~sqrt(2); then use m/2 and k + 1.
  int i = (hx + 0x95f64) & 0x100000;
  if (i != 0) {
    m *= R(0.5);
    k += 1;
  }
  precise REAL f = m - R(1.0);
  REAL dk = REAL(k);
  if ((0x000fffff & (2 + hx)) < 3) {  // -2^-20 <= f < 2^-20
    if (f == R(0.0)) {
      if (k == 0) return R(0.0);
      precise REAL res0 = dk * PPL_LN2_HI + dk * PPL_LN2_LO;
      return res0;
    }
    precise REAL r0 = f * f * (R(0.5) - R(0.33333333333333333) * f);
    precise REAL res1 = (k == 0) ? f - r0 : dk * PPL_LN2_HI - ((r0 - dk * PPL_LN2_LO) - f);
    return res1;
  }
  precise REAL s = f / (R(2.0) + f);
  precise REAL z = s * s;
  int i2 = hx - 0x6147a;
  precise REAL w = z * z;
  int j = 0x6b851 - hx;
  precise REAL t1 = w * (R(3.999999999940941908e-01) + w * (R(2.222219843214978396e-01)
      + w * R(1.531383769920937332e-01)));
  precise REAL t2 = z * (R(6.666666666666735130e-01) + w * (R(2.857142874366239149e-01)
      + w * (R(1.818357216161805012e-01) + w * R(1.479819860511658591e-01))));
  i2 |= j;
  precise REAL r = t2 + t1;
  precise REAL res;
  if (i2 > 0) {
    precise REAL hfsq = R(0.5) * f * f;
    if (k == 0) res = f - (hfsq - s * (hfsq + r));
    else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + dk * PPL_LN2_LO)) - f);
  } else {
    if (k == 0) res = f - s * (f - r);
    else res = dk * PPL_LN2_HI - ((s * (f - r) - dk * PPL_LN2_LO) - f);
  }
  return res;
}

REAL ppl_log1p(REAL x) {
  if (ppl_isnan(x) || x < R(-1.0)) return PPL_NAN;
  if (x == R(-1.0)) return -PPL_INF;
  if (ppl_isinf(x)) return x;
  REAL ax = abs(x);
  if (ax < R(1.862645149230957e-09)) {  // |x| < 2^-29: x - x^2/2 is exact to rounding
    precise REAL t = x - x * x * R(0.5);
    return (ax < R(5.551115123125783e-17)) ? x : t;
  }
  int k = 1;
  precise REAL f;
  precise REAL c = R(0.0);
  int hu = 1;
  if (x < R(4.142135623730950488017e-01) && x > R(-2.928932188134524755992e-01)) {
    // 1 + x in (sqrt(2)/2, sqrt(2)): no reduction, f = x exactly.
    k = 0;
    f = x;
  } else {
    precise REAL u = R(1.0) + x;
    if (x < PPL_ALL_INTEGERS) {
      // c = (1 + x) - u, the rounding error of u, relative to u.
      c = (u >= R(2.0)) ? R(1.0) - (u - x) : x - (u - R(1.0));
      c /= u;
    }
    int hx;
    REAL m = ppl_normalize(u, k, hx);
    // As in log: switch to [sqrt(2)/2, 1) when m >= ~sqrt(2) (fdlibm's 0x6a09e threshold).
    hu = hx;
    if (hx >= 0x6a09e) {
      m *= R(0.5);
      k += 1;
      hu = (0x100000 - hx) >> 2;  // zero when m is within 2^-20 of 2, i.e. |f| < 2^-20
    }
    f = m - R(1.0);
  }
  REAL dk = REAL(k);
  precise REAL hfsq = R(0.5) * f * f;
  if (hu == 0) {  // |f| < 2^-20 (only reachable with k != 0)
    if (f == R(0.0)) {
      precise REAL res0 = dk * PPL_LN2_HI + (c + dk * PPL_LN2_LO);
      return res0;
    }
    precise REAL r0 = hfsq * (R(1.0) - R(0.66666666666666666) * f);
    precise REAL res1 = dk * PPL_LN2_HI - ((r0 - (dk * PPL_LN2_LO + c)) - f);
    return res1;
  }
  precise REAL s = f / (R(2.0) + f);
  precise REAL z = s * s;
  precise REAL r = z * (R(6.666666666666735130e-01) + z * (R(3.999999999940941908e-01)
      + z * (R(2.857142874366239149e-01) + z * (R(2.222219843214978396e-01)
      + z * (R(1.818357216161805012e-01) + z * (R(1.531383769920937332e-01)
      + z * R(1.479819860511658591e-01)))))));
  precise REAL res;
  if (k == 0) res = f - (hfsq - s * (hfsq + r));
  else res = dk * PPL_LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * PPL_LN2_LO + c))) - f);
  return res;
}
#endif
