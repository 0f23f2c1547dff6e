/**
 * Per-gradient cost of the compiled CPU density on bench/stan-cases.ts' cases: the model's
 * `logpGrad` for one chain (what the sampler calls), cold and warm.
 *
 * - cold: the first 100 evaluations after the [lp, gradient] executable is compiled (V8 interprets
 *   the generated kernel, then optimises it), their summed CPU time / 100;
 * - warm: after 2,000 more evaluations, `--rounds` rounds of `--batch` evaluations each; per round
 *   the process's CPU time (user + system) / batch, reported as the median round (the machine is
 *   shared, and CPU time is what its load stretches least), with the wall median beside it.
 *
 * The points are a fixed walk around the origin (q_k = 0.1·sin(k + j)), the same for every run.
 * `--dump DIR` writes each case's generated JavaScript to DIR/<case>.js. `--json` prints one JSON
 * object. Run one case at a time in a fresh process for the cold figure:
 *
 *   npx tsx bench/compiled-gradient.ts [--case ordered_logistic,weibull_survival,logistic_n5000] [--rounds 31] [--batch 200] [--dump DIR] [--json]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { compileModel } from "../packages/ppl/src/index.ts";
import { recordedDensity } from "../packages/ppl/src/internals.ts";
import { caseDataFile, STAN_CASES } from "./stan-cases.ts";

const { values } = parseArgs({
  options: { case: { type: "string" }, rounds: { type: "string" }, batch: { type: "string" }, dump: { type: "string" }, json: { type: "boolean" } },
});
const cases = (values.case ?? "ordered_logistic,weibull_survival,logistic_n5000").split(",");
const rounds = Number(values.rounds ?? 31);
const batch = Number(values.batch ?? 200);
const dataDir = join(tmpdir(), "ppl-stan-cases");

const cpuMicros = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** The per-gradient figures of one case, in µs. */
interface CaseTiming {
  readonly case: string;
  readonly dim: number;
  readonly kernels: number;
  readonly coldCpuUs: number;
  readonly warmCpuUs: number;
  readonly warmWallUs: number;
  readonly lp0: number;
}

async function timeCase(name: string): Promise<CaseTiming> {
  const c = STAN_CASES[name];
  if (c === undefined) throw new Error(`unknown case '${name}'; the cases are ${Object.keys(STAN_CASES).join(", ")}`);
  const cm = compileModel(c.model, caseDataFile(name, dataDir).values);
  const { exe, logpGrad } = await recordedDensity(cm);
  if (values.dump !== undefined) {
    mkdirSync(values.dump, { recursive: true });
    writeFileSync(join(values.dump, `${name}.js`), exe.source);
  }
  const points = Array.from({ length: 64 }, (_, k) => Float64Array.from({ length: cm.dim }, (_, j) => 0.1 * Math.sin(k + j)));
  const grad = new Float64Array(cm.dim);
  let sink = 0;
  const t0 = cpuMicros();
  for (let i = 0; i < 100; i++) sink += logpGrad(points[i & 63]!, grad);
  const coldCpuUs = (cpuMicros() - t0) / 100;
  for (let i = 0; i < 2000; i++) sink += logpGrad(points[i & 63]!, grad);
  const cpu: number[] = [], wall: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const c0 = cpuMicros(), w0 = performance.now();
    for (let i = 0; i < batch; i++) sink += logpGrad(points[i & 63]!, grad);
    cpu.push((cpuMicros() - c0) / batch);
    wall.push(((performance.now() - w0) * 1000) / batch);
  }
  if (!Number.isFinite(sink)) throw new Error(`${name}: a log density was not finite`);
  return { case: name, dim: cm.dim, kernels: exe.stats.kernels, coldCpuUs, warmCpuUs: median(cpu), warmWallUs: median(wall), lp0: logpGrad(points[0]!, grad) };
}

const results: CaseTiming[] = [];
for (const name of cases) {
  const t = await timeCase(name);
  results.push(t);
  if (!values.json) {
    console.log(`${t.case}: dim ${t.dim}, ${t.kernels} kernels; cold ${t.coldCpuUs.toFixed(1)} µs CPU/gradient (first 100); ` +
      `warm ${t.warmCpuUs.toFixed(1)} µs CPU, ${t.warmWallUs.toFixed(1)} µs wall (median of ${rounds} × ${batch}); lp(q0) = ${t.lp0}`);
  }
}
if (values.json) console.log(JSON.stringify({ date: new Date().toISOString(), results }));
