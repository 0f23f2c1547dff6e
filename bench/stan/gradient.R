# Stan's cost of one value + gradient of the N=100k D=100 logistic regression (bench/stan/logistic.stan,
# bernoulli_logit_glm), as the sampler asks for it: rstan's grad_log_prob at a fixed point, 40
# calls after one warm-up call; prints CPU (user + system) and wall milliseconds per call. The data
# are ../shared/anchors/make_data.py's float32 files in DIR (python3 make_data.py DIR).
#
#   Rscript bench/stan/gradient.R [DIR]    (from the repository root; DIR defaults to /tmp/ppl-anchor-data)
suppressPackageStartupMessages(library(rstan))
args <- commandArgs(trailingOnly = TRUE)
data_dir <- if (length(args) > 0) args[1] else "/tmp/ppl-anchor-data"
N <- 100000L
D <- 100L
read_f32 <- function(file, n) readBin(file.path(data_dir, file), what = "numeric", size = 4, n = n, endian = "little")
X <- matrix(read_f32("logistic_n100k_d100.X.f32", N * D), nrow = N, ncol = D, byrow = TRUE)
y <- as.integer(read_f32("logistic_n100k_d100.y.f32", N))
sm <- stan_model(file = "bench/stan/logistic.stan", auto_write = FALSE)
# One iteration without sampling gives a fit whose model object evaluates the density.
fit <- sampling(sm, data = list(N = N, D = D, X = X, y = y), chains = 1, iter = 1, algorithm = "Fixed_param", refresh = 0)
set.seed(1)
u <- rnorm(D + 1, 0, 0.1)
invisible(grad_log_prob(fit, u))
reps <- 40
t <- system.time(for (i in 1:reps) g <- grad_log_prob(fit, u + i * 1e-6))
cat(sprintf("rstan grad_log_prob, N=100k D=100: %.2f ms CPU (user + sys), %.2f ms wall per call, %d calls\n",
            1000 * (t[["user.self"]] + t[["sys.self"]]) / reps, 1000 * t[["elapsed"]] / reps, reps))
