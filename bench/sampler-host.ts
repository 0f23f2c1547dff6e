/**
 * The sampler's own host work for many chains, with a transition runner that costs nothing: what
 * a GPU run of thousands of chains pays on the host besides waiting for the device (recording the
 * draws and statistics, dual averaging and the metric's Welford updates from the reported
 * statistics, the step-size searches over a cheap density, allocating the outputs).
 * The density is a standard normal in `dim` dimensions; the runner moves every chain a little and
 * reports an accept statistic of 0.8.
 *
 *   npx tsx bench/sampler-host.ts [--chains 1024] [--dim 11] [--warmup 500] [--draws 500] [--reps 5]
 */
import { parseArgs } from "node:util";
import { sample, type BatchedDensity } from "../packages/ppl/src/index.ts";

const { values } = parseArgs({ options: { chains: { type: "string" }, dim: { type: "string" }, warmup: { type: "string" }, draws: { type: "string" }, reps: { type: "string" } } });
const chains = Number(values.chains ?? 1024);
const dim = Number(values.dim ?? 11);
const warmup = Number(values.warmup ?? 500);
const draws = Number(values.draws ?? 500);
const reps = Number(values.reps ?? 5);

const density: BatchedDensity = {
  dim,
  logpGrad(q, lp, grad, active) {
    for (let c = 0; c < lp.length; c++) {
      if (active && !active[c]) continue;
      let s = 0;
      for (let j = 0; j < dim; j++) {
        const x = q[c * dim + j]!;
        s += x * x;
        grad[c * dim + j] = -x;
      }
      lp[c] = -0.5 * s;
    }
  },
};

for (let rep = 0; rep < reps; rep++) {
  const t0 = performance.now();
  let runnerMs = 0;
  const res = sample(density, {
    chains, warmup, draws, seed: 100 + rep,
    transitionRunner: { plan: { chains, maxDepth: 10, metric: "diag", dtype: "f64", shape: "host" }, factory: () => ({
      run(t, _stepSizes, batch, stats) {
        const t1 = performance.now();
        for (let c = 0; c < chains; c++) {
          const row = batch.qRows[c]!;
          for (let j = 0; j < dim; j++) row[j] = 0.9 * row[j]! + 0.001 * ((t + c + j) % 7);
          batch.lp[c] = -0.5;
          const s = stats[c]!;
          s.acceptStat = 0.8;
          s.treeDepth = 3;
          s.nLeapfrog = 7;
          s.divergent = false;
          s.energy = 1;
        }
        runnerMs += performance.now() - t1;
      },
    }) },
  });
  const wall = performance.now() - t0;
  console.log(JSON.stringify({ chains, dim, warmup, draws, rep, wall_ms: +wall.toFixed(1), runner_ms: +runnerMs.toFixed(1), host_ms: +(wall - runnerMs).toFixed(1), warmup_ms: +(res.timing.warmupSeconds * 1e3).toFixed(1), sampling_ms: +(res.timing.samplingSeconds * 1e3).toFixed(1), draws_per_chain: res.draws[0]!.length / dim }));
}
