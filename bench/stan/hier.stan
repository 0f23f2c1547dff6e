// The `hier` anchor (bench/anchor-models.ts' anchorHier): varying intercepts, non-centred, with a
// group-level predictor u: a = mu + gamma * u + sigma_a * a_raw, y ~ N(a[g] + b * x, sigma_y). The
// data's g is 0-based (make_data.py's), so the program adds 1.
data {
  int<lower=1> N;
  int<lower=1> J;
  int<lower=0, upper=J - 1> g[N];
  vector[N] x;
  vector[J] u;
  vector[N] y;
}
transformed data {
  int gg[N];
  for (n in 1:N) gg[n] = g[n] + 1;
}
parameters {
  real mu;
  real gamma;
  real b;
  real<lower=0> sigma_a;
  real<lower=0> sigma_y;
  vector[J] a_raw;
}
model {
  vector[J] a = mu + gamma * u + sigma_a * a_raw;
  mu ~ normal(0, 5);
  gamma ~ normal(0, 5);
  b ~ normal(0, 5);
  sigma_a ~ normal(0, 2);
  sigma_y ~ normal(0, 2);
  a_raw ~ normal(0, 1);
  y ~ normal(a[gg] + b * x, sigma_y);
}
