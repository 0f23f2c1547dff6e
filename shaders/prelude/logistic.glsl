// sigmoid, softplus and log_sigmoid, written exactly as the CPU backend's formulas
// (packages/tensor/src/cpu/scalar.ts) so that both backends round the same way.
// Generic over REAL.

// 1/(1 + exp(-x)) without overflow: for x < 0 use e/(1 + e) with e = exp(x) <= 1.
REAL ppl_sigmoid(REAL x) {
  if (x >= R(0.0)) return R(1.0) / (R(1.0) + ppl_exp(-x));
  REAL e = ppl_exp(x);
  return e / (R(1.0) + e);  // NaN falls through here and stays NaN
}

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for x > 0, log1p(exp(x)) otherwise.
REAL ppl_softplus(REAL x) {
  return x > R(0.0) ? x + ppl_log1p(ppl_exp(-x)) : ppl_log1p(ppl_exp(x));
}

// log(sigmoid(x)) = -softplus(-x).
REAL ppl_log_sigmoid(REAL x) { return -ppl_softplus(-x); }
