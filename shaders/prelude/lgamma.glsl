// lgamma(x) = log|Gamma(x)|: fdlibm e_lgamma_r.c (as ported by stdlib's gammaln, the CPU
// reference), error < ~1 ulp away from the zeros at 1 and 2 and small absolute error near them.
// Intervals: [0, 2) by minimax approximations around 1, 2 and the minimum 1.4616 (so the
// zeros at 1 and 2 come out with full relative accuracy); [2, 8) by a rational approximation
// of lgamma(2 + f) and the recurrence; [8, 2^56) by Stirling's series; negative non-integers
// by the reflection lgamma(-x) = log(pi / |x sin(pi x)|) - lgamma(x) (sin(pi x) from ppl_sinpi).
// Poles (0 and negative integers) give +inf; +-inf give +-inf (as the CPU). Generic over REAL.

REAL ppl_lgamma(REAL x) {
  if (ppl_isnan(x) || ppl_isinf(x)) return x;  // lgamma(-inf) = -inf, as the CPU reference
  if (x == R(0.0)) return PPL_INF;
  bool neg = x < R(0.0);
  REAL ax = abs(x);
  if (ax < R(1.3877787807814457e-17)) return -ppl_log(ax);  // |x| < 2^-56
  REAL nadj = R(0.0);
  if (neg) {
    if (ax >= PPL_ALL_INTEGERS) return PPL_INF;
    REAL t = ppl_sinpi(ax);
    if (t == R(0.0)) return PPL_INF;
    nadj = ppl_log(R(3.14159265358979311600e+00) / abs(t * ax));
  }
  if (ax == R(1.0) || ax == R(2.0)) return neg ? nadj : R(0.0);
  REAL r;
  const REAL YMIN = R(1.461632144968362245);
  const REAL TC = R(1.46163214496836224576e+00);
  if (ax < R(2.0)) {
    REAL y;
    int flg;
    if (ax <= R(0.9)) {
      r = -ppl_log(ax);
      if (ax >= YMIN - R(1.0) + R(0.27)) { y = R(1.0) - ax; flg = 0; }
      else if (ax >= YMIN - R(1.0) - R(0.27)) { y = ax - (TC - R(1.0)); flg = 1; }
      else { y = ax; flg = 2; }
    } else {
      r = R(0.0);
      if (ax >= YMIN + R(0.27)) { y = R(2.0) - ax; flg = 0; }
      else if (ax >= YMIN - R(0.27)) { y = ax - TC; flg = 1; }
      else { y = ax - R(1.0); flg = 2; }
    }
    if (flg == 0) {
      REAL z = y * y;
      REAL p1 = R(7.72156649015328655494e-02) + z * (R(0.06735230105312927) + z * (R(0.007385550860814029)
          + z * (R(0.0011927076318336207) + z * (R(0.00022086279071390839) + z * R(0.000025214456545125733)))));
      REAL p2 = z * (R(3.22467033424113591611e-01) + z * (R(0.020580808432516733) + z * (R(0.0028905138367341563)
          + z * (R(0.0005100697921535113) + z * (R(0.00010801156724758394) + z * R(0.000044864094961891516))))));
      REAL p = y * p1 + p2;
      r += p - R(0.5) * y;
    } else if (flg == 1) {
      REAL z = y * y;
      REAL w = z * y;
      REAL p1 = R(4.83836122723810047042e-01) + w * (R(-0.032788541075985965) + w * (R(0.006100538702462913)
          + w * (R(-0.0014034646998923284) + w * R(0.00031563207090362595))));
      REAL p2 = R(-1.47587722994593911752e-01) + w * (R(0.01797067508118204) + w * (R(-0.0036845201678113826)
          + w * (R(0.000881081882437654) + w * R(-0.00031275416837512086))));
      REAL p3 = R(6.46249402391333854778e-02) + w * (R(-0.010314224129834144) + w * (R(0.0022596478090061247)
          + w * (R(-0.0005385953053567405) + w * R(0.0003355291926355191))));
      REAL p = z * p1 - (R(-3.63867699703950536541e-18) - w * (p2 + y * p3));
      r += R(-1.21486290535849611461e-01) + p;
    } else {
      REAL p1 = y * (R(-7.72156649015328655494e-02) + y * (R(0.6328270640250934) + y * (R(1.4549225013723477)
          + y * (R(0.9777175279633727) + y * (R(0.22896372806469245) + y * R(0.013381091853678766))))));
      REAL p2 = R(1.0) + y * (R(2.4559779371304113) + y * (R(2.128489763798934) + y * (R(0.7692851504566728)
          + y * (R(0.10422264559336913) + y * R(0.003217092422824239)))));
      r += R(-0.5) * y + p1 / p2;
    }
  } else if (ax < R(8.0)) {
    int i = int(ax);
    REAL y = ax - REAL(i);
    REAL p = y * (R(-7.72156649015328655494e-02) + y * (R(0.21498241596060885) + y * (R(0.325778796408931)
        + y * (R(0.14635047265246445) + y * (R(0.02664227030336386) + y * (R(0.0018402845140733772)
        + y * R(0.00003194753265841009)))))));
    REAL q = R(1.0) + y * (R(1.3920053346762105) + y * (R(0.7219355475671381) + y * (R(0.17193386563280308)
        + y * (R(0.01864591917156529) + y * (R(0.0007779424963818936) + y * R(0.000007326684307446256))))));
    r = R(0.5) * y + p / q;
    REAL z = R(1.0);  // lgamma(1 + s) = log(s) + lgamma(s)
    if (i >= 7) z *= y + R(6.0);
    if (i >= 6) z *= y + R(5.0);
    if (i >= 5) z *= y + R(4.0);
    if (i >= 4) z *= y + R(3.0);
    if (i >= 3) {
      z *= y + R(2.0);
      r += ppl_log(z);
    }
  } else if (ax < R(72057594037927936.0)) {  // 2^56
    REAL t = ppl_log(ax);
    REAL z = R(1.0) / ax;
    REAL y = z * z;
    REAL w = R(4.18938533204672725052e-01) + z * (R(0.08333333333333297) + y * (R(-0.0027777777772877554)
        + y * (R(0.0007936505586430196) + y * (R(-0.00059518755745034) + y * (R(0.0008363399189962821)
        + y * R(-0.0016309293409657527))))));
    r = (ax - R(0.5)) * (t - R(1.0)) + w;
  } else {
    r = ax * (ppl_log(ax) - R(1.0));
  }
  return neg ? nadj - r : r;
}
