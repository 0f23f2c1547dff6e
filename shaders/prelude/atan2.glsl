// atan(x) and atan2(y, x): fdlibm s_atan.c and e_atan2.c, error < 1 ulp.
// atan: reduce |x| to [0, 7/16] with atan(x) = atan(c) + atan((x - c)/(1 + c x)) for
// c in {1/2, 1, 3/2, inf}, the table values atan(c) kept in two parts; odd minimax polynomial
// of degree 23. atan2 handles signs, zeros and infinities as C99/IEEE (= JS Math.atan2).
// Generic over REAL.

REAL ppl_atan(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax >= R(7.378697629483820646e+19)) {  // |x| >= 2^66: +-pi/2
    precise REAL h = R(1.57079632679489655800e+00) + R(6.12323399573676603587e-17);
    return x > R(0.0) ? h : -h;
  }
  int id;
  precise REAL t;
  if (ax < R(0.4375)) {
    if (ax < R(7.450580596923828125e-09)) return x;  // |x| < 2^-27
    id = -1;
    t = x;
  } else if (ax < R(0.6875)) {
    id = 0;
    t = (R(2.0) * ax - R(1.0)) / (R(2.0) + ax);
  } else if (ax < R(1.1875)) {
    id = 1;
    t = (ax - R(1.0)) / (ax + R(1.0));
  } else if (ax < R(2.4375)) {
    id = 2;
    t = (ax - R(1.5)) / (R(1.0) + R(1.5) * ax);
  } else {
    id = 3;
    t = R(-1.0) / ax;
  }
  precise REAL z = t * t;
  precise REAL w = z * z;
  // Odd and even halves of sum_{i=0..10} aT[i] z^(i+1), as fdlibm splits them.
  precise REAL s1 = z * (R(3.33333333333329318027e-01) + w * (R(1.42857142725034663711e-01)
      + w * (R(9.09088713343650656196e-02) + w * (R(6.66107313738753120669e-02)
      + w * (R(4.97687799461593236017e-02) + w * R(1.62858201153657823623e-02))))));
  precise REAL s2 = w * (R(-1.99999999998764832476e-01) + w * (R(-1.11111104054623557880e-01)
      + w * (R(-7.69187620504482999495e-02) + w * (R(-5.83357013379057348645e-02)
      + w * R(-3.65315727442169155270e-02)))));
  if (id < 0) {
    precise REAL r0 = t - t * (s1 + s2);
    return r0;
  }
  REAL hi = id == 0 ? R(4.63647609000806093515e-01) : id == 1 ? R(7.85398163397448278999e-01)
          : id == 2 ? R(9.82793723247329054082e-01) : R(1.57079632679489655800e+00);
  REAL lo = id == 0 ? R(2.26987774529616870924e-17) : id == 1 ? R(3.06161699786838301793e-17)
          : id == 2 ? R(1.39033110312309984516e-17) : R(6.12323399573676603587e-17);
  precise REAL r = hi - ((t * (s1 + s2) - lo) - t);
  return x < R(0.0) ? -r : r;
}

REAL ppl_atan2(REAL y, REAL x) {
  const REAL PI = R(3.14159265358979311600e+00);
  const REAL PI_LO = R(1.22464679914735317720e-16);
  const REAL PIO2 = R(1.57079632679489655800e+00);
  const REAL PIO4 = R(7.85398163397448278999e-01);
  if (ppl_isnan(x) || ppl_isnan(y)) return PPL_NAN;
  // Sign bits, so that -0 counts as negative (atan2(+0, -0) = pi, atan2(-0, +0) = -0).
  bool yneg = ppl_signbit(y);
  bool xneg = ppl_signbit(x);
  if (y == R(0.0)) return xneg ? (yneg ? -PI : PI) : y;
  if (x == R(0.0)) return yneg ? -PIO2 : PIO2;
  if (ppl_isinf(x)) {
    if (ppl_isinf(y)) {
      REAL a = xneg ? R(3.0) * PIO4 : PIO4;
      return yneg ? -a : a;
    }
    REAL b = xneg ? PI : R(0.0);
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
