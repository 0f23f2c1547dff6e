// bench/stan-cases.ts' weibullSurvivalModel: t ~ Weibull(alpha, exp(mu + X * beta)), right-censored
// where censored[n] = 1 (the event comes after t[n]: weibull_lccdf).
data {
  int<lower=1> N;
  int<lower=1> D;
  matrix[N, D] X;
  vector<lower=0>[N] t;
  int<lower=0, upper=1> censored[N];
}
parameters {
  real<lower=0> alpha;
  real mu;
  vector[D] beta;
}
model {
  vector[N] sigma = exp(mu + X * beta);
  alpha ~ normal(0, 2);
  mu ~ normal(0, 5);
  beta ~ normal(0, 1);
  for (n in 1:N) {
    if (censored[n] == 1) target += weibull_lccdf(t[n] | alpha, sigma[n]);
    else target += weibull_lpdf(t[n] | alpha, sigma[n]);
  }
}
