// The `hier` anchor (bench/anchor-models.ts' anchorHier) written as most Stan users write it, with a
// loop over the rows: the loop pass must make it one vectorized observation. The data's g is
// 0-based (the anchors'), so the program adds 1.
data {
  int<lower=1> N;
  int<lower=1> J;
  array[N] int<lower=0, upper=J - 1> g;
  vector[N] x;
  vector[J] u;
  vector[N] y;
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
  vector[J] a;
  for (j in 1:J) a[j] = mu + gamma * u[j] + sigma_a * a_raw[j];
  mu ~ normal(0, 5);
  gamma ~ normal(0, 5);
  b ~ normal(0, 5);
  sigma_a ~ normal(0, 2);
  sigma_y ~ normal(0, 2);
  a_raw ~ normal(0, 1);
  for (n in 1:N) y[n] ~ normal(a[g[n] + 1] + b * x[n], sigma_y);
}
