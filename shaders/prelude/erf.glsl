// erf and erfc: fdlibm s_erf.c (the scheme of W. J. Cody's rational approximations, as ported by
// stdlib, the CPU reference), error < 1 ulp; erfc keeps full relative accuracy in the right tail
// up to its underflow at x ~ 27 (f64). Intervals:
//   |x| < 0.84375:        erf = x + x*P(x^2)/Q(x^2)
//   0.84375 <= |x| < 1.25: erf = erx + P(s)/Q(s), s = |x| - 1
//   1.25 <= |x| < 28:      erfc = exp(-z^2 - 0.5625) * exp((z - x)(z + x) + R(1/x^2)/S(1/x^2)) / x,
//                          z = x with its low bits cleared so that z^2 is exact.
// Generic over REAL.

REAL ppl_erf_pp(REAL z) {
  return R(1.28379167095512558561e-01) + z * (R(-0.3250421072470015) + z * (R(-0.02848174957559851)
      + z * (R(-0.005770270296489442) + z * R(-0.000023763016656650163))));
}
REAL ppl_erf_qq(REAL z) {
  return R(1.0) + z * (R(0.39791722395915535) + z * (R(0.0650222499887673) + z * (R(0.005081306281875766)
      + z * (R(0.00013249473800432164) + z * R(-0.000003960228278775368)))));
}
REAL ppl_erf_pa(REAL s) {
  return R(-2.36211856075265944077e-03) + s * (R(0.41485611868374833) + s * (R(-0.3722078760357013)
      + s * (R(0.31834661990116175) + s * (R(-0.11089469428239668) + s * (R(0.035478304325618236)
      + s * R(-0.002166375594868791))))));
}
REAL ppl_erf_qa(REAL s) {
  return R(1.0) + s * (R(0.10642088040084423) + s * (R(0.540397917702171) + s * (R(0.07182865441419627)
      + s * (R(0.12617121980876164) + s * (R(0.01363708391202905) + s * R(0.011984499846799107))))));
}

// exp(-x^2 - 0.5625 + R/S) / x for 1.25 <= x < 28: the common tail of erf and erfc.
REAL ppl_erfc_tail(REAL ax) {
  REAL s = R(1.0) / (ax * ax);
  REAL r;
  REAL q;
  if (ax < R(2.857142857142857)) {  // 1/0.35
    r = R(-9.86494403484714822705e-03) + s * (R(-0.6938585727071818) + s * (R(-10.558626225323291)
        + s * (R(-62.375332450326006) + s * (R(-162.39666946257347) + s * (R(-184.60509290671104)
        + s * (R(-81.2874355063066) + s * R(-9.814329344169145)))))));
    q = R(1.0) + s * (R(19.651271667439257) + s * (R(137.65775414351904) + s * (R(434.56587747522923)
        + s * (R(645.3872717332679) + s * (R(429.00814002756783) + s * (R(108.63500554177944)
        + s * (R(6.570249770319282) + s * R(-0.0604244152148581))))))));
  } else {
    r = R(-9.86494292470009928597e-03) + s * (R(-0.799283237680523) + s * (R(-17.757954917754752)
        + s * (R(-160.63638485582192) + s * (R(-637.5664433683896) + s * (R(-1025.0951316110772)
        + s * R(-483.5191916086514))))));
    q = R(1.0) + s * (R(30.33806074348246) + s * (R(325.7925129965739) + s * (R(1536.729586084437)
        + s * (R(3199.8582195085955) + s * (R(2553.0504064331644) + s * (R(474.52854120695537)
        + s * R(-22.44095244658582)))))));
  }
  REAL z = ppl_clear_low(ax);
  precise REAL d = (z - ax) * (z + ax);
  return ppl_exp(-z * z - R(0.5625)) * ppl_exp(d + r / q) / ax;
}

REAL ppl_erf(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  REAL sg = x < R(0.0) ? R(-1.0) : R(1.0);
  if (ax < R(0.84375)) {
    if (ax < PPL_ERF_SMALL) return x + R(1.28379167095512586316e-01) * x;
    REAL z = x * x;
    return x + x * (ppl_erf_pp(z) / ppl_erf_qq(z));
  }
  if (ax < R(1.25)) {
    REAL s = ax - R(1.0);
    return sg * (R(8.45062911510467529297e-01) + ppl_erf_pa(s) / ppl_erf_qa(s));
  }
  if (ax >= R(6.0)) return sg;
  return sg * (R(1.0) - ppl_erfc_tail(ax));
}

REAL ppl_erfc(REAL x) {
  if (ppl_isnan(x)) return x;
  REAL ax = abs(x);
  if (ax < R(0.84375)) {
    if (ax < R(1.3877787807814457e-17)) return R(1.0) - x;  // |x| < 2^-56
    REAL z = x * x;
    REAL y = ppl_erf_pp(z) / ppl_erf_qq(z);
    if (x < R(0.25)) return R(1.0) - (x + x * y);
    return R(0.5) - (x * y + (x - R(0.5)));
  }
  if (ax < R(1.25)) {
    REAL s = ax - R(1.0);
    REAL pq = ppl_erf_pa(s) / ppl_erf_qa(s);
    return x < R(0.0) ? R(1.0) + R(8.45062911510467529297e-01) + pq
                      : R(1.0) - R(8.45062911510467529297e-01) - pq;
  }
  if (ax < R(28.0)) {
    if (x < R(-6.0)) return R(2.0);
    REAL t = ppl_erfc_tail(ax);
    return x < R(0.0) ? R(2.0) - t : t;
  }
  return x < R(0.0) ? R(2.0) : R(0.0);
}
