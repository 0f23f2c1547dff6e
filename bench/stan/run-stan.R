# Stan's side of bench/cpu-vs-stan.ts: runs rstan's NUTS on the three cases of that bench with the
# settings ours uses (4 chains x (1000 warmup + 1000 draws), Stan's defaults otherwise: adapt_delta
# 0.8, max tree depth 10, diagonal metric) and writes what it measured to bench/stan/results.json,
# one entry per case, so that the TypeScript bench (and CI) reads Stan's figures without R.
#
#   Rscript bench/stan/run-stan.R [--reps 3] [--data-dir DIR] [case ...]
#
# cases: eight_schools, kidiq, logistic, and the medium cases of bench/stan-cases.ts (logistic_n300,
# logistic_n5000, ordered_logistic, weibull_survival, hier_n10k_j200, read from --cases-dir; default:
# eight_schools kidiq). The logistic case reads the
# raw float32 files that ../shared/anchors/make_data.py writes into DIR (python3 make_data.py DIR).
# Run it from the repository root. Needs rstan (the Debian package r-cran-rstan, rstan 2.21).
#
# Per repetition it records every chain's warm-up and sampling seconds (rstan's get_elapsed_time, the
# figures CmdStan prints as Elapsed Time; Stan 2.21 measures them with clock(), i.e. the process's
# CPU time, which a loaded machine does not stretch as it does wall time), the wall and CPU time of the sampling() call with the four chains
# one after another in this process (cores = 1), the smallest bulk-ESS over all parameters but lp__
# (rstan::ess_bulk, the rank-normalized split-chain ESS that posterior and ours compute), the
# gradient evaluations (sum of n_leapfrog__, warm-up included) and the divergences. Once per case it
# also times sampling() with cores = 2 (the chains in two worker processes, as a user of 2 cores
# would run them: that wall includes starting the workers).
suppressPackageStartupMessages({
  library(rstan)
  library(jsonlite)
})
t_loaded <- proc.time()[["elapsed"]]

args <- commandArgs(trailingOnly = TRUE)
opt <- function(name, default) {
  i <- match(name, args)
  if (is.na(i)) return(default)
  v <- args[i + 1]
  args <<- args[-c(i, i + 1)]
  v
}
reps <- as.integer(opt("--reps", "3"))
data_dir <- opt("--data-dir", "/tmp/ppl-anchor-data")
# The medium cases' Stan JSON files, written by `npx tsx bench/cpu-vs-stan.ts --write-data` (bench/stan-cases.ts).
cases_dir <- opt("--cases-dir", "/tmp/ppl-stan-cases")
cases <- if (length(args) > 0) args else c("eight_schools", "kidiq")
out_file <- "bench/stan/results.json"
cache_dir <- Sys.getenv("STAN_CACHE", file.path(tempdir(), "..", "ppl-stan-cache"))
dir.create(cache_dir, showWarnings = FALSE, recursive = TRUE)

# The compiled model is cached by the program's checksum: compiling takes about a minute and is not
# part of what the bench compares (a CmdStan user compiles once, too).
compiled <- function(stan_file) {
  key <- unname(tools::md5sum(stan_file))
  rds <- file.path(cache_dir, paste0(basename(stan_file), "-", key, ".rds"))
  if (file.exists(rds)) return(list(model = readRDS(rds), compile_s = NA_real_))
  t0 <- proc.time()[["elapsed"]]
  sm <- stan_model(file = stan_file)
  compile_s <- proc.time()[["elapsed"]] - t0
  saveRDS(sm, rds)
  list(model = sm, compile_s = compile_s)
}

medium_cases <- c("logistic_n300", "logistic_n5000", "ordered_logistic", "weibull_survival", "hier_n10k_j200")

read_f32 <- function(path, n) readBin(path, what = "numeric", size = 4, n = n, endian = "little")

case_data <- function(name) {
  if (name == "eight_schools") return(fromJSON("examples/eight_schools.json"))
  if (name == "kidiq") {
    d <- fromJSON("../shared/posteriordb/kidiq-kidscore_interaction/data.json")
    return(d[c("N", "kid_score", "mom_iq", "mom_hs")])
  }
  if (name == "logistic") {
    N <- 100000L
    D <- 100L
    X <- matrix(read_f32(file.path(data_dir, "logistic_n100k_d100.X.f32"), N * D), nrow = N, ncol = D, byrow = TRUE)
    y <- as.integer(read_f32(file.path(data_dir, "logistic_n100k_d100.y.f32"), N))
    return(list(N = N, D = D, X = X, y = y))
  }
  if (name %in% medium_cases) {
    f <- file.path(cases_dir, paste0(name, ".json"))
    if (!file.exists(f)) stop(f, " is missing: run `npx tsx bench/cpu-vs-stan.ts --write-data` first")
    return(fromJSON(f))
  }
  stop("unknown case ", name)
}

stan_file <- c(
  eight_schools = "bench/stan/eight_schools_noncentered.stan",
  kidiq = "bench/stan/kidscore_interaction.stan",
  logistic = "bench/stan/logistic.stan",
  logistic_n300 = "bench/stan/logistic.stan",
  logistic_n5000 = "bench/stan/logistic.stan",
  ordered_logistic = "bench/stan/ordered_logistic.stan",
  weibull_survival = "bench/stan/weibull_survival.stan",
  hier_n10k_j200 = "bench/stan/hier.stan"
)

run_once <- function(sm, data, seed, cores) {
  t0 <- proc.time()
  fit <- sampling(sm, data = data, chains = 4, iter = 2000, warmup = 1000, seed = seed, cores = cores,
                  refresh = 0, open_progress = FALSE)
  t1 <- proc.time()
  wall <- t1[["elapsed"]] - t0[["elapsed"]]
  # user + system of this process (and, with cores = 2, of the finished worker processes).
  cpu <- sum(t1[c("user.self", "sys.self", "user.child", "sys.child")] - t0[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE)
  draws <- as.array(fit)
  params <- setdiff(dimnames(draws)[[3]], "lp__")
  ess <- vapply(params, function(p) ess_bulk(draws[, , p]), numeric(1))
  sp <- get_sampler_params(fit, inc_warmup = TRUE)
  elapsed <- get_elapsed_time(fit)
  list(
    seed = seed,
    cores = cores,
    sampling_call_wall_s = wall,
    sampling_call_cpu_s = cpu,
    chain_warmup_s = unname(elapsed[, "warmup"]),
    chain_sampling_s = unname(elapsed[, "sample"]),
    min_ess_bulk = min(ess),
    min_ess_bulk_parameter = names(which.min(ess)),
    grad_evals = sum(vapply(sp, function(s) sum(s[, "n_leapfrog__"]), numeric(1))),
    divergences = sum(vapply(sp, function(s) sum(s[1001:2000, "divergent__"]), numeric(1)))
  )
}

results <- if (file.exists(out_file)) fromJSON(out_file, simplifyVector = FALSE) else list()
for (name in cases) {
  cat("case", name, "\n")
  c <- compiled(stan_file[[name]])
  data <- case_data(name)
  runs <- lapply(seq_len(reps), function(r) {
    x <- run_once(c$model, data, seed = 1000 + r, cores = 1)
    cat(sprintf("  rep %d: chains %s s (warm-up + sampling), call %.2f s, min bulk-ESS %.0f\n", r,
                paste(sprintf("%.3f", x$chain_warmup_s + x$chain_sampling_s), collapse = " "), x$sampling_call_wall_s, x$min_ess_bulk))
    x
  })
  parallel <- if (name != "logistic") run_once(c$model, data, seed = 2000, cores = 2) else NULL
  if (!is.null(parallel)) cat(sprintf("  cores = 2: call %.2f s\n", parallel$sampling_call_wall_s))
  results[[name]] <- list(
    case = name,
    stan_file = stan_file[[name]],
    rstan = as.character(packageVersion("rstan")),
    date = format(Sys.time(), "%Y-%m-%dT%H:%M:%SZ", tz = "UTC"),
    machine = paste(Sys.info()[["nodename"]], parallel::detectCores(), "cores"),
    load_average = readLines("/proc/loadavg"),
    settings = list(chains = 4, warmup = 1000, draws = 1000, adapt_delta = 0.8, max_depth = 10, metric = "diag_e"),
    compile_s = c$compile_s,
    r_start_to_rstan_loaded_s = t_loaded,
    runs = runs,
    parallel_run = parallel
  )
  # Written after every case: the logistic case runs for many minutes.
  writeLines(toJSON(results, auto_unbox = TRUE, digits = NA, pretty = TRUE, null = "null", na = "null"), out_file)
}
