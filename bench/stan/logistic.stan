// The N=100k D=100 logistic regression of ../shared/anchors/numpyro_bench.py (bench/anchor-models.ts'
// anchorLogistic): beta ~ N(0, 1)^D, alpha ~ N(0, 1), y ~ Bernoulli(logit = X * beta + alpha).
data {
  int<lower=1> N;
  int<lower=1> D;
  matrix[N, D] X;
  int<lower=0, upper=1> y[N];
}
parameters {
  vector[D] beta;
  real alpha;
}
model {
  beta ~ normal(0, 1);
  alpha ~ normal(0, 1);
  y ~ bernoulli_logit_glm(X, alpha, beta);
}
