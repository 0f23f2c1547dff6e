/**
 * Per-gradient cost of the compiled CPU density on bench/stan-cases.ts' cases: the model's
 * `logpGrad` for one chain (what the sampler calls), cold and warm.
 *
 * - cold: the first 100 evaluations after the [lp, gradient] executable is compiled (V8 interprets
 *   the generated kernel, then optimises it), their summed CPU time / 100;
 * - warm: after 2,000 more evaluations, `--rounds` rounds of `--batch` evaluations each; per round
 *   the process's CPU time (user + system) / batch, reported as the median and the minimum round
 *   (the machine is shared, and CPU time is what its load stretches least), the wall median beside.
 *   The rounds are interleaved: round r of every case (and of every checkout) runs before round
 *   r + 1 of any, so a change in the machine's load falls on all of them alike.
 *
 * `--base DIR` times a second checkout (its packages/ppl/src and bench/stan-cases.ts, loaded as a
 * module graph of its own) against this one in the same process, the two alternating round by
 * round, and says whether both give the same bits (lp and gradient at every point). The second
 * checkout's cold figure is not cold there (V8 reuses the code of a generated function whose source
 * it has compiled already): take cold figures from a run of one checkout alone.
 *
 * The points are a fixed walk around the origin (q_k = 0.1·sin(k + j)), the same for every run.
 * `--dump DIR` writes each case's generated JavaScript to DIR/<case>.js. `--json` prints one JSON
 * object. The 1-minute load average is printed at the start and the end.
 *
 *   npx tsx bench/compiled-gradient.ts [--case logistic_n300,…] [--rounds 31] [--batch 200] [--base DIR] [--dump DIR] [--json]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    case: { type: "string" }, rounds: { type: "string" }, batch: { type: "string" }, base: { type: "string" },
    dump: { type: "string" }, json: { type: "boolean" },
  },
});
const cases = (values.case ?? "logistic_n300,logistic_n5000,ordered_logistic,weibull_survival,hier_n10k_j200").split(",");
const rounds = Number(values.rounds ?? 31);
const batch = Number(values.batch ?? 200);
const dataDir = join(tmpdir(), "ppl-stan-cases");

const cpuMicros = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

type LogpGrad = (q: Float64Array, grad: Float64Array) => number;

/** One checkout's compiled density for one case, and its timings so far. */
interface Subject {
  readonly checkout: string;
  readonly case: string;
  readonly dim: number;
  readonly kernels: number;
  readonly logpGrad: LogpGrad;
  coldCpuUs: number;
  readonly cpu: number[];
  readonly wall: number[];
}

/** What the bench reads of a checkout: its model compiler and its cases. */
interface Checkout {
  readonly name: string;
  make(name: string): Promise<{ dim: number; kernels: number; source: string; logpGrad: LogpGrad }>;
}

async function loadCheckout(root: string, name: string): Promise<Checkout> {
  const url = (p: string): string => pathToFileURL(resolve(root, p)).href;
  const ppl = (await import(url("packages/ppl/src/index.ts"))) as typeof import("../packages/ppl/src/index.ts");
  const internals = (await import(url("packages/ppl/src/internals.ts"))) as typeof import("../packages/ppl/src/internals.ts");
  const stanCases = (await import(url("bench/stan-cases.ts"))) as typeof import("./stan-cases.ts");
  return {
    name,
    async make(c) {
      const spec = stanCases.STAN_CASES[c];
      if (spec === undefined) throw new Error(`unknown case '${c}'; the cases are ${Object.keys(stanCases.STAN_CASES).join(", ")}`);
      const cm = ppl.compileModel(spec.model, stanCases.caseDataFile(c, dataDir).values);
      const { exe, logpGrad } = await internals.recordedDensity(cm);
      return { dim: cm.dim, kernels: exe.stats.kernels, source: exe.source, logpGrad };
    },
  };
}

const pointsFor = (dim: number): Float64Array[] => Array.from({ length: 64 }, (_, k) => Float64Array.from({ length: dim }, (_, j) => 0.1 * Math.sin(k + j)));

// The first 100 evaluations (cold), then 2,000 to warm up.
function warmUp(s: Subject): void {
  const points = pointsFor(s.dim);
  const grad = new Float64Array(s.dim);
  let sink = 0;
  const t0 = cpuMicros();
  for (let i = 0; i < 100; i++) sink += s.logpGrad(points[i & 63]!, grad);
  s.coldCpuUs = (cpuMicros() - t0) / 100;
  for (let i = 0; i < 2000; i++) sink += s.logpGrad(points[i & 63]!, grad);
  if (!Number.isFinite(sink)) throw new Error(`${s.case}: a log density was not finite`);
}

function timeRound(s: Subject): void {
  const points = pointsFor(s.dim);
  const grad = new Float64Array(s.dim);
  let sink = 0;
  const c0 = cpuMicros(), w0 = performance.now();
  for (let i = 0; i < batch; i++) sink += s.logpGrad(points[i & 63]!, grad);
  s.cpu.push((cpuMicros() - c0) / batch);
  s.wall.push(((performance.now() - w0) * 1000) / batch);
  if (!Number.isFinite(sink)) throw new Error(`${s.case}: a log density was not finite`);
}

// Whether two subjects give the same lp and gradient bits at every point.
function sameBits(a: Subject, b: Subject): boolean {
  const ga = new Float64Array(a.dim), gb = new Float64Array(b.dim);
  return pointsFor(a.dim).every((q) => Object.is(a.logpGrad(q, ga), b.logpGrad(q, gb)) && ga.every((g, j) => Object.is(g, gb[j])));
}

const load0 = loadavg()[0]!;
const checkouts = [await loadCheckout(resolve(import.meta.dirname, ".."), "this")];
if (values.base !== undefined) checkouts.unshift(await loadCheckout(values.base, "base"));
const subjects: Subject[] = [];
for (const c of cases) {
  for (const co of checkouts) {
    const m = await co.make(c);
    if (values.dump !== undefined && co.name === "this") {
      mkdirSync(values.dump, { recursive: true });
      writeFileSync(join(values.dump, `${c}.js`), m.source);
    }
    const s: Subject = { checkout: co.name, case: c, dim: m.dim, kernels: m.kernels, logpGrad: m.logpGrad, coldCpuUs: 0, cpu: [], wall: [] };
    warmUp(s);
    subjects.push(s);
  }
}
for (let r = 0; r < rounds; r++) {
  // Alternate which checkout goes first, so neither always runs right after the other's case.
  const order = r % 2 === 0 ? subjects : [...subjects].reverse();
  for (const s of order) timeRound(s);
}
const load1 = loadavg()[0]!;

const results = subjects.map((s) => {
  const base = s.checkout === "this" ? subjects.find((b) => b.checkout === "base" && b.case === s.case) : undefined;
  return {
    checkout: s.checkout, case: s.case, dim: s.dim, kernels: s.kernels, coldCpuUs: s.coldCpuUs,
    warmCpuUs: median(s.cpu), minCpuUs: Math.min(...s.cpu), warmWallUs: median(s.wall),
    ...(base ? { sameBitsAsBase: sameBits(s, base) } : {}),
  };
});
if (values.json) console.log(JSON.stringify({ date: new Date().toISOString(), load: [load0, load1], rounds, batch, results }));
else {
  console.log(`load average (1 min) ${load0.toFixed(2)} at the start, ${load1.toFixed(2)} at the end; ${rounds} interleaved rounds × ${batch} evaluations`);
  for (const t of results) {
    console.log(`${t.checkout} ${t.case}: dim ${t.dim}, ${t.kernels} kernels; cold ${t.coldCpuUs.toFixed(1)} µs CPU/gradient (first 100); ` +
      `warm ${t.warmCpuUs.toFixed(1)} µs CPU median, ${t.minCpuUs.toFixed(1)} min, ${t.warmWallUs.toFixed(1)} µs wall median` +
      ("sameBitsAsBase" in t ? `; same bits as base: ${t.sameBitsAsBase}` : ""));
  }
}
