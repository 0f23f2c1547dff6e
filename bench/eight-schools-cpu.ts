/**
 * Eight schools (non-centered) on the CPU backend: the sampler time of 4 chains × (1000 warmup +
 * 1000 draws) — what Stan's CSVs call Elapsed Time — and the time of one gradient as the sampler
 * asks for it (logpGrad of one chain of a batch). Prints one JSON line; medians over `--reps` runs.
 * Run: npx tsx bench/eight-schools-cpu.ts [--reps 5] [--threads N]
 */
import { parseArgs } from "node:util";
import { compileModel, modelDensity, sample, sampleAsync, stopSamplerThreads } from "../packages/ppl/src/index.ts";
import eightSchools from "../examples/eight_schools.ts";

const { values } = parseArgs({ options: { reps: { type: "string" }, threads: { type: "string" }, grads: { type: "string" } } });
const reps = Number(values.reps ?? 5);
const threads = values.threads === undefined ? undefined : Number(values.threads);
const data = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const t0 = performance.now();
const density = await modelDensity(compileModel(eightSchools, data), { backend: "cpu" });
const compileMs = performance.now() - t0;

// One gradient as the sampler asks for it: one active row of a 4-chain batch.
const chains = 4, dim = density.dim;
const q = Float64Array.from({ length: chains * dim }, (_, i) => Math.sin(i) * 0.7);
const lp = new Float64Array(chains), grad = new Float64Array(chains * dim);
const active = new Uint8Array(chains);
const gradCalls = Number(values.grads ?? 200_000);
const gradUs: number[] = [];
for (let r = 0; r < reps + 1; r++) {
  const s = performance.now();
  for (let i = 0; i < gradCalls; i++) {
    active.fill(0);
    active[i & 3] = 1;
    q[(i & 3) * dim] = (i % 97) * 0.01;
    density.logpGrad(q, lp, grad, active);
  }
  if (r > 0) gradUs.push(((performance.now() - s) * 1000) / gradCalls); // the first round warms up the JIT
}

const samplerS: number[] = [];
const evals: number[] = [];
for (let r = 0; r < reps; r++) {
  const res = await sampleAsync(density, { chains: 4, warmup: 1000, draws: 1000, seed: 1000 + r, ...(threads !== undefined ? { threads } : {}) });
  samplerS.push(res.timing.warmupSeconds + res.timing.samplingSeconds);
  evals.push(res.gradientEvaluations.reduce((a, b) => a + b, 0));
}

// The sampler's own cost per leapfrog: the same run on a density that costs next to nothing
// (independent normals of the same dimension).
const free = {
  dim,
  logpGrad(qs: Float64Array, lps: Float64Array, g: Float64Array, act?: Uint8Array) {
    for (let c = 0; c < lps.length; c++) {
      if (act && !act[c]) continue;
      let s = 0;
      for (let i = c * dim; i < (c + 1) * dim; i++) {
        s += qs[i]! * qs[i]!;
        g[i] = -qs[i]!;
      }
      lps[c] = -0.5 * s;
    }
  },
};
const freeUs: number[] = [];
for (let r = 0; r < reps; r++) {
  const res = sample(free, { chains: 4, warmup: 1000, draws: 1000, seed: 1000 + r });
  freeUs.push(((res.timing.warmupSeconds + res.timing.samplingSeconds) * 1e6) / res.gradientEvaluations.reduce((a, b) => a + b, 0));
}

console.log(
  JSON.stringify({
    case: "eight_schools_nc 4x(1000+1000) cpu",
    threads: threads ?? 1,
    compile_ms: +compileMs.toFixed(1),
    us_per_gradient: +median(gradUs).toFixed(3),
    sampler_s: +median(samplerS).toFixed(4),
    sampler_s_all: samplerS.map((s) => +s.toFixed(4)),
    us_per_gradient_in_sampler: +((median(samplerS) * 1e6) / median(evals)).toFixed(3),
    gradient_evaluations: median(evals),
    sampler_us_per_leapfrog_free_density: +median(freeUs).toFixed(3),
  }),
);
await stopSamplerThreads();
