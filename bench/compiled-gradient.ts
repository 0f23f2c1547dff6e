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
 * `--base DIR` times a second checkout against this one, the two alternating round by round, and
 * says whether both give the same bits (lp and gradient at every point). Each checkout runs in a
 * process of its own started in its directory (tsx maps the packages by the tsconfig it finds
 * there), which times its rounds when the coordinating process asks.
 *
 * The points are a fixed walk around the origin (q_k = 0.1·sin(k + j)), the same for every run.
 * `--dump DIR` writes each case's generated JavaScript to DIR/<case>.js. `--json` prints one JSON
 * object. The 1-minute load average is printed at the start and the end.
 *
 *   npx tsx bench/compiled-gradient.ts [--case logistic_n300,…] [--rounds 31] [--batch 200] [--base DIR] [--dump DIR] [--json]
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    case: { type: "string" }, rounds: { type: "string" }, batch: { type: "string" }, base: { type: "string" },
    dump: { type: "string" }, json: { type: "boolean" }, worker: { type: "boolean" },
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

/** What a worker says about one case once it is compiled and warm. */
interface Ready {
  readonly case: string;
  readonly dim: number;
  readonly kernels: number;
  readonly coldCpuUs: number;
}

/** Messages to a worker and its answers (one answer per message). */
type Request = { readonly kind: "round"; readonly case: string } | { readonly kind: "bits" };
type Answer = { readonly cpu: number; readonly wall: number } | { readonly bits: Record<string, string> } | { readonly ready: Ready[] };

const pointsFor = (dim: number): Float64Array[] => Array.from({ length: 64 }, (_, k) => Float64Array.from({ length: dim }, (_, j) => 0.1 * Math.sin(k + j)));

/** The worker: compiles the cases of the checkout it runs in (its cwd), then times rounds on request. */
async function worker(): Promise<void> {
  const url = (p: string): string => pathToFileURL(resolve(process.cwd(), p)).href;
  const ppl = (await import(url("packages/ppl/src/index.ts"))) as typeof import("../packages/ppl/src/index.ts");
  const internals = (await import(url("packages/ppl/src/internals.ts"))) as typeof import("../packages/ppl/src/internals.ts");
  const stanCases = (await import(url("bench/stan-cases.ts"))) as typeof import("./stan-cases.ts");
  const fns = new Map<string, { dim: number; logpGrad: LogpGrad }>();
  const ready: Ready[] = [];
  for (const c of cases) {
    const spec = stanCases.STAN_CASES[c];
    if (spec === undefined) throw new Error(`unknown case '${c}'; the cases are ${Object.keys(stanCases.STAN_CASES).join(", ")}`);
    const cm = ppl.compileModel(spec.model, stanCases.caseDataFile(c, dataDir).values);
    const { exe, logpGrad } = await internals.recordedDensity(cm);
    if (values.dump !== undefined) {
      mkdirSync(values.dump, { recursive: true });
      writeFileSync(join(values.dump, `${c}.js`), exe.source);
    }
    fns.set(c, { dim: cm.dim, logpGrad });
    ready.push({ case: c, dim: cm.dim, kernels: exe.stats.kernels, coldCpuUs: warmUp(cm.dim, logpGrad, c) });
  }
  const send = (a: Answer): void => void process.send!(a);
  process.on("message", (m: Request) => {
    if (m.kind === "round") send(timeRound(fns.get(m.case)!.dim, fns.get(m.case)!.logpGrad, m.case));
    else send({ bits: Object.fromEntries([...fns].map(([c, f]) => [c, bitsOf(f.dim, f.logpGrad)])) });
  });
  send({ ready });
}

// The first 100 evaluations' CPU µs each (cold), then 2,000 to warm up.
function warmUp(dim: number, logpGrad: LogpGrad, name: string): number {
  const points = pointsFor(dim);
  const grad = new Float64Array(dim);
  let sink = 0;
  const t0 = cpuMicros();
  for (let i = 0; i < 100; i++) sink += logpGrad(points[i & 63]!, grad);
  const cold = (cpuMicros() - t0) / 100;
  for (let i = 0; i < 2000; i++) sink += logpGrad(points[i & 63]!, grad);
  if (!Number.isFinite(sink)) throw new Error(`${name}: a log density was not finite`);
  return cold;
}

function timeRound(dim: number, logpGrad: LogpGrad, name: string): { cpu: number; wall: number } {
  const points = pointsFor(dim);
  const grad = new Float64Array(dim);
  let sink = 0;
  const c0 = cpuMicros(), w0 = performance.now();
  for (let i = 0; i < batch; i++) sink += logpGrad(points[i & 63]!, grad);
  const cpu = (cpuMicros() - c0) / batch, wall = ((performance.now() - w0) * 1000) / batch;
  if (!Number.isFinite(sink)) throw new Error(`${name}: a log density was not finite`);
  return { cpu, wall };
}

// lp and gradient at every point, as the bytes of their doubles (hex), to compare bit for bit.
function bitsOf(dim: number, logpGrad: LogpGrad): string {
  const grad = new Float64Array(dim);
  const all = new Float64Array(64 * (dim + 1));
  pointsFor(dim).forEach((q, k) => {
    all[k * (dim + 1)] = logpGrad(q, grad);
    all.set(grad, k * (dim + 1) + 1);
  });
  return Buffer.from(all.buffer).toString("hex");
}

/** A worker process and a way to ask it one thing at a time. */
interface Worker {
  readonly name: string;
  readonly child: ChildProcess;
  ask(r?: Request): Promise<Answer>;
}

function startWorker(name: string, root: string): Worker {
  const args = ["--worker", "--case", cases.join(","), "--batch", String(batch), ...(values.dump !== undefined && name === "this" ? ["--dump", values.dump] : [])];
  const child = fork(fileURLToPath(import.meta.url), args, { cwd: root, execArgv: ["--import", "tsx"] });
  let pending: ((a: Answer) => void) | undefined;
  const first = new Promise<Answer>((res) => (pending = res));
  child.on("message", (a: Answer) => pending?.(a));
  child.on("exit", (code) => {
    if (code !== 0 && code !== null) throw new Error(`the ${name} checkout's worker exited with ${code}`);
  });
  let started = false;
  return {
    name, child,
    ask(r) {
      if (!started) {
        started = true;
        return first;
      }
      const p = new Promise<Answer>((res) => (pending = res));
      child.send(r!);
      return p;
    },
  };
}

/** The coordinator: a worker per checkout, rounds interleaved across cases and checkouts. */
async function coordinate(): Promise<void> {
  const load0 = loadavg()[0]!;
  const workers = [...(values.base !== undefined ? [startWorker("base", resolve(values.base))] : []), startWorker("this", resolve(import.meta.dirname, ".."))];
  // One worker compiles at a time, so neither's cold figure shares the cores with the other's.
  const ready: Ready[][] = [];
  for (const w of workers) ready.push(((await w.ask()) as { ready: Ready[] }).ready);
  const cpu = workers.map(() => new Map<string, number[]>(cases.map((c) => [c, []])));
  const wall = workers.map(() => new Map<string, number[]>(cases.map((c) => [c, []])));
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      // Alternate which checkout goes first.
      const order = r % 2 === 0 ? workers.map((_, i) => i) : workers.map((_, i) => workers.length - 1 - i);
      for (const i of order) {
        const a = (await workers[i]!.ask({ kind: "round", case: c })) as { cpu: number; wall: number };
        cpu[i]!.get(c)!.push(a.cpu);
        wall[i]!.get(c)!.push(a.wall);
      }
    }
  }
  const bits: Record<string, string>[] = [];
  for (const w of workers) bits.push(((await w.ask({ kind: "bits" })) as { bits: Record<string, string> }).bits);
  for (const w of workers) w.child.kill();
  const load1 = loadavg()[0]!;
  const results = workers.flatMap((w, i) =>
    ready[i]!.map((t) => ({
      checkout: w.name, ...t,
      warmCpuUs: median(cpu[i]!.get(t.case)!), minCpuUs: Math.min(...cpu[i]!.get(t.case)!), warmWallUs: median(wall[i]!.get(t.case)!),
      ...(workers.length > 1 && w.name === "this" ? { sameBitsAsBase: bits[i]![t.case] === bits[0]![t.case] } : {}),
    })),
  );
  if (values.json) {
    console.log(JSON.stringify({ date: new Date().toISOString(), load: [load0, load1], rounds, batch, results }));
    return;
  }
  console.log(`load average (1 min) ${load0.toFixed(2)} at the start, ${load1.toFixed(2)} at the end; ${rounds} interleaved rounds × ${batch} evaluations`);
  for (const t of results) {
    console.log(`${t.checkout} ${t.case}: dim ${t.dim}, ${t.kernels} kernels; cold ${t.coldCpuUs.toFixed(1)} µs CPU/gradient (first 100); ` +
      `warm ${t.warmCpuUs.toFixed(1)} µs CPU median, ${t.minCpuUs.toFixed(1)} min, ${t.warmWallUs.toFixed(1)} µs wall median` +
      ("sameBitsAsBase" in t ? `; same bits as base: ${t.sameBitsAsBase}` : ""));
  }
}

if (values.worker) await worker();
else await coordinate();
