// sigmoid, softplus and log_sigmoid, written exactly as the CPU backend's formulas
// (packages/tensor/src/cpu/scalar.ts) so that both backends round the same way.
// Generic over REAL.

// 1/(1 + exp(-x)) without overflow: for x < 0 use e/(1 + e) with e = exp(x) <= 1. Both cases
// take e = exp(-|x|) (that is exp(-x) for x >= 0 and exp(x) below), so that a subgroup with
// lanes of both signs evaluates one exp, not one in each branch; and one division, of the
// numerator the sign selects (the same quotient as dividing in each branch).
REAL ppl_sigmoid(REAL x) {
  REAL e = ppl_exp(-abs(x));
  return (x >= R(0.0) ? R(1.0) : e) / (R(1.0) + e);  // NaN: e is NaN, and so is the result
}

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for x > 0, log1p(exp(x)) otherwise; as
// in ppl_sigmoid, both are log1p(exp(-|x|)), computed once.
REAL ppl_softplus(REAL x) {
  REAL l = ppl_log1p(ppl_exp(-abs(x)));
  return x > R(0.0) ? x + l : l;
}

// log(sigmoid(x)) = -softplus(-x).
REAL ppl_log_sigmoid(REAL x) { return -ppl_softplus(-x); }
