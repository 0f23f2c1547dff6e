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
  REAL acc = R(0.0);
  while (x < R(16.0)) {
    REAL inv = R(1.0) / x;
    REAL p = inv * inv;  // 1/x^2
    if (n >= 2) p *= inv;
    if (n >= 3) p *= inv;
    acc += p;
    x += R(1.0);
  }
  REAL inv = R(1.0) / x;
  REAL z = inv * inv;
  REAL s;
  REAL lead;  // (n-1)!/x^n
  REAL nfact;  // n!
  if (n == 1) {
    s = z * (R(0.16666666666666666) + z * (R(-0.033333333333333333) + z * (R(0.023809523809523808)
        + z * (R(-0.033333333333333333) + z * (R(0.07575757575757576) + z * (R(-0.2531135531135531)
        + z * (R(1.1666666666666667) + z * (R(-7.0921568627450977) + z * (R(54.971177944862156)
        + z * R(-529.12424242424242))))))))));
    lead = inv;
    nfact = R(1.0);
  } else if (n == 2) {
    s = z * (R(0.5) + z * (R(-0.16666666666666666) + z * (R(0.16666666666666666)
        + z * (R(-0.29999999999999999) + z * (R(0.83333333333333337) + z * (R(-3.2904761904761903)
        + z * (R(17.5) + z * (R(-120.56666666666666) + z * (R(1044.452380952381)
        + z * R(-11111.609090909091))))))))));
    lead = z;
    nfact = R(2.0);
  } else {
    s = z * (R(1.0) + z * (R(-0.5) + z * (R(0.66666666666666663) + z * (R(-1.5) + z * (R(5.0)
        + z * (R(-23.033333333333335) + z * (R(140.0) + z * (R(-1085.0999999999999)
        + z * (R(10444.523809523809) + z * R(-122227.7))))))))));
    lead = R(2.0) * z * inv;
    nfact = R(6.0);
  }
  REAL asym = lead * (R(1.0) + REAL(n) * R(0.5) * inv + s);
  REAL v = nfact * acc + asym;
  return (n == 2) ? -v : v;
}

REAL ppl_polygamma(int n, REAL x) {
  if (n == 0) return ppl_digamma(x);
  if (n < 0 || n > 3 || ppl_isnan(x)) return PPL_NAN;
  if (x > R(0.0)) return ppl_isinf(x) ? (n == 2 ? R(-0.0) : R(0.0)) : ppl_polygamma_pos(n, x);
  if (ppl_isinf(x)) return PPL_NAN;
  if (floor(x) == x) return n == 1 ? PPL_NAN : PPL_INF;
  const REAL PI = R(3.14159265358979311600e+00);
  REAL sp = ppl_sinpi(x);
  REAL cp = ppl_cospi(x);
  REAL reflected = ppl_polygamma_pos(n, R(1.0) - x);
  REAL pis = PI / sp;
  REAL pis2 = pis * pis;
  if (n == 1) return -reflected + pis2;
  if (n == 2) return reflected - R(2.0) * pis2 * pis * cp;
  return -reflected + R(2.0) * pis2 * pis2 * (R(2.0) * cp * cp + R(1.0));
}

REAL ppl_trigamma(REAL x) { return ppl_polygamma(1, x); }
