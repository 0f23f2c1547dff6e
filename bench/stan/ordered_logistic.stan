// bench/stan-cases.ts' orderedLogisticModel: y in 1..K, P(y <= k) = inv_logit(c[k] - X * beta).
data {
  int<lower=1> N;
  int<lower=1> D;
  int<lower=2> K;
  matrix[N, D] X;
  int<lower=1, upper=K> y[N];
}
parameters {
  vector[D] beta;
  ordered[K - 1] c;
}
model {
  beta ~ normal(0, 1);
  c ~ normal(0, 5);
  y ~ ordered_logistic(X * beta, c);
}
