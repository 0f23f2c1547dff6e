"""Time to a target bulk ESS for NumPyro's NUTS (4 chains, vectorized) on the anchors, by the rule of
bench/target-blocks.ts (docs/target-ess-benchmark.md): warmup, then fixed blocks of draws a chain;
after each block the bulk ESS of every coordinate over all draws so far; stop at the first block
where the lowest reaches the target. The models are those of the shared anchors' numpyro_bench.py
(the GPU bundle copies it to .gpu/anchors/). One JSON line per case and repetition.
  python3 bench/numpyro_target.py --target 1000 --block 100 [--warmup 1000] [--reps 2]
      [--max-draws 20000] [--max-seconds 300] [--budget-seconds B] [--jax-cache DIR] 8s lr many hier
"""
import argparse, json, os, sys, time
import numpy as np
import jax
from jax import lax

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".gpu", "anchors"))
import numpyro_bench as anchors  # noqa: E402  (its models; it imports numpyro and make_data)
from numpyro.diagnostics import effective_sample_size  # noqa: E402
from numpyro.infer import MCMC, NUTS  # noqa: E402

try:
    import arviz as az
except ImportError:
    az = None

CASES = {  # the names bench/gpu-anchors.ts --target-ess prints
    "8s": ("eight_schools_nc", anchors.eight_schools_nc),
    "lr": ("logistic_n100k_d100", lambda: anchors.logistic(100_000, 100)),
    "many": ("logistic_n1k_d10", lambda: anchors.logistic(1000, 10)),
    "hier": ("hier_n100k_j2000", anchors.hier),
}


def bulk_ess_arviz(x):
    """Bulk ESS of every coordinate of x (chains, draws, k) by ArviZ: posterior's (Vehtari et al. 2021) method."""
    return np.asarray(az.ess(az.convert_to_dataset({"q": x}), method="bulk")["q"].values).reshape(-1)


def bulk_ess_numpyro(x):
    """Bulk ESS of x (chains, draws, k): numpyro's effective_sample_size on split, rank-normalised draws."""
    from scipy.special import ndtri
    from scipy.stats import rankdata
    c, n, k = x.shape
    h = n // 2
    split = np.concatenate([x[:, :h], x[:, n - h:]], axis=0)  # an odd chain's middle draw left out, as posterior does
    r = rankdata(split.reshape(-1, k), axis=0)  # ties get their average rank
    z = ndtri((r - 0.375) / (r.shape[0] + 0.25)).reshape(2 * c, h, k)
    return np.asarray(effective_sample_size(z)).reshape(-1)


def estimator():
    """ArviZ's bulk ESS where ArviZ is installed and answers; numpyro's on rank-normalised split draws otherwise."""
    if az is not None:
        try:
            bulk_ess_arviz(np.random.default_rng(0).normal(size=(4, 20, 2)))
            return bulk_ess_arviz, f"arviz {az.__version__} ess(method='bulk')"
        except Exception as e:  # an ArviZ whose API differs: say so, and use the other
            print(f"arviz {az.__version__} ess failed ({e}); using numpyro's", file=sys.stderr)
    return bulk_ess_numpyro, "numpyro.diagnostics.effective_sample_size on split rank-normalised draws"


def names_of(z):
    """Coordinate names of a block's z (site: draws x chains x shape; sites sorted), Stan style: a vector's entries 1-based."""
    out = []
    for site in sorted(z):
        size = int(np.prod(z[site].shape[2:]))
        out += [site] if z[site].ndim == 2 else [f"{site}[{i + 1}]" for i in range(size)]
    return out


def flat(z, chains):
    """z's draws (draws, chains, ...) per site as one array (chains, draws, k)."""
    parts = [np.asarray(z[s]).reshape(z[s].shape[0], chains, -1) for s in sorted(z)]
    return np.concatenate(parts, axis=2).transpose(1, 0, 2)


def target_rep(model, rep, a, ess_fn, cap):
    chains = 4
    t0 = time.perf_counter()
    mcmc = MCMC(NUTS(model), num_warmup=a.warmup, num_samples=a.block, num_chains=chains, chain_method="vectorized", progress_bar=False)
    mcmc.warmup(jax.random.PRNGKey(rep))
    state = jax.block_until_ready(mcmc.post_warmup_state)
    t_warm = time.perf_counter()
    sampler = mcmc.sampler  # its sample() is vmapped over the chains once warmup has initialised it

    @jax.jit
    def block(s):
        def step(s, _):
            s = sampler.sample(s, (), {})
            return s, (s.z, s.diverging, s.num_steps)
        return lax.scan(step, s, None, length=a.block)

    draws, names, checks, check_s, met, stopped, last, missed = [], None, 0, 0.0, None, "max_draws", None, 0
    divergences = grad_evals = 0
    # JAX dispatches asynchronously: the next block is started before the last one's draws are
    # checked, so that the device samples while the host checks (as ours does).
    pending = block(state)
    while sum(d.shape[1] for d in draws) < a.max_draws:
        if time.perf_counter() - t0 > cap:
            stopped = "max_seconds"
            break
        state, (z, div, steps) = pending
        z = jax.device_get(z)
        pending = block(state)
        divergences += int(np.sum(div))
        grad_evals += int(np.sum(steps))
        names = names or names_of(z)
        draws.append(flat(z, chains))
        tc = time.perf_counter()
        x = np.concatenate(draws, axis=1)
        # The coordinate that missed last first: when it misses again, so does the check (the same
        # decision as over every coordinate, as bench/target-blocks.ts decides it).
        ess = ess_fn(x[:, :, [missed]])
        if ess[0] >= a.target:
            ess = ess_fn(x)
        j = int(np.nanargmin(ess)) if np.any(np.isfinite(ess)) else 0
        reached = len(ess) == len(names) and bool(np.all(ess >= a.target))
        if len(ess) == len(names):
            missed = j
        last = (float(ess[j]), names[missed if len(ess) == 1 else j], x.shape[1])
        now = time.perf_counter()
        check_s += now - tc
        checks += 1
        if reached:
            met, stopped = now, "target"
            break
    end = met or time.perf_counter()
    # The block dispatched ahead finishes outside the timing, before the next repetition starts.
    jax.block_until_ready(pending)
    return dict(
        available=True, reached=met is not None, stopped=stopped, cap_s=round(cap, 1), wall_s=round(end - t0, 3), warmup_s=round(t_warm - t0, 3),
        sampling_s=round(end - t_warm, 3), check_s=round(check_s, 3), checks=checks, draws=last[2] if last else 0,
        min_ess=round(last[0], 1) if last else None, min_ess_name=last[1] if last else None,
        sampling_grad_evals=grad_evals, divergences=divergences, device=str(jax.devices()[0]),
    )


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--target", type=float, default=1000)
    p.add_argument("--block", type=int, default=100, help="draws a chain between checks")
    p.add_argument("--warmup", type=int, default=1000)
    p.add_argument("--reps", type=int, default=2, help="rep 0 compiles; later reps find the JAX cache (with --jax-cache)")
    p.add_argument("--max-draws", type=int, default=20000, help="cap on draws a chain")
    p.add_argument("--max-seconds", type=float, default=300, help="cap on a repetition's wall seconds")
    p.add_argument("--budget-seconds", type=float, default=float("inf"), help="the whole program's: a repetition's cap is also what is left over the repetitions left")
    p.add_argument("--jax-cache", help="JAX's persistent compilation cache: later reps load the compiled sampler, as ours loads its kernels")
    p.add_argument("cases", nargs="*", default=list(CASES))
    a = p.parse_args()
    if a.jax_cache:
        for option, value in (("jax_compilation_cache_dir", a.jax_cache), ("jax_persistent_cache_min_compile_time_secs", 0)):
            try:
                jax.config.update(option, value)
            except Exception as e:  # an older JAX without the option: later reps compile again
                print(f"jax.config {option}: {e}", file=sys.stderr)
    ess_fn, ess_name = estimator()
    started, reps_left = time.perf_counter(), a.reps * len(a.cases)
    for key in a.cases:
        name, make = CASES[key]
        model = make()  # the data into arrays before any timing, as numpyro_bench.py does
        for rep in range(a.reps):
            cap = min(a.max_seconds, max(5.0, (a.budget_seconds - (time.perf_counter() - started)) / reps_left))
            reps_left -= 1
            line = target_rep(model, rep, a, ess_fn, cap)
            head = dict(case=name, bench="target_ess", method="numpyro_nuts", chains=4, superchains=None, block=a.block, warmup=a.warmup, target=a.target, rep=rep)
            print(json.dumps({**head, **line, "ess_estimator": ess_name, "numpyro": __import__("numpyro").__version__, "jax": jax.__version__}), flush=True)


if __name__ == "__main__":
    main()
