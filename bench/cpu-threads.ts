/**
 * Threads against one thread on the CPU backend: wall time of whole sampler runs (sampleAsync, the
 * worker pool started cold by the first threaded run and warm after), interleaved so that a burst
 * of load on a shared machine hits both alike; medians over `--reps`. Also the same work as two
 * separate processes would see it is not measured here: compare with the machine's own parallel
 * capacity (two busy loops at once). Run: npx tsx bench/cpu-threads.ts [--reps 5] [--case 8s|kidiq|8s64]
 */
import { parseArgs } from "node:util";
import { compileModel, modelDensity, sampleAsync, stopSamplerThreads, type Model } from "../packages/ppl/src/index.ts";
import { loadPosterior } from "../packages/ppl/src/posteriordb/reference.ts";
import { loadModel } from "../packages/ppl/src/posteriordb/run-posterior.ts";
import eightSchools from "../examples/eight_schools.ts";

const { values } = parseArgs({ options: { reps: { type: "string" }, case: { type: "string" }, threads: { type: "string" } } });
const reps = Number(values.reps ?? 5);
const which = values.case ?? "8s";
const threads = Number(values.threads ?? 2);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

let model: Model, data: unknown, chains = 4;
if (which === "kidiq") {
  model = await loadModel("kidiq-kidscore_interaction");
  data = loadPosterior("kidiq-kidscore_interaction").data;
} else {
  model = eightSchools;
  data = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
  if (which === "8s64") chains = 64;
}
const density = await modelDensity(compileModel(model, data), { backend: "cpu" });
const walls: Record<string, number[]> = { "1": [], [String(threads)]: [] };
let used = 0;
for (let r = 0; r < reps; r++) {
  for (const t of [1, threads]) {
    const t0 = performance.now();
    const res = await sampleAsync(density, { chains, warmup: 1000, draws: 1000, seed: 100 + r, threads: t });
    walls[String(t)]!.push((performance.now() - t0) / 1000);
    if (t > 1) used = Math.max(used, res.threads?.used ?? 1);
  }
}
await stopSamplerThreads();
const one = median(walls["1"]!), many = median(walls[String(threads)]!);
console.log(JSON.stringify({ case: which, chains, threads, wall_s_1_thread: +one.toFixed(3), [`wall_s_${threads}_threads`]: +many.toFixed(3), speedup: +(one / many).toFixed(2), threads_used: used, all: walls }));
