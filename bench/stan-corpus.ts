/**
 * The Stan corpus (../shared/stan-corpus, 40 posteriordb programs without reference draws) through
 * the toolkit, one program per child process with a time limit:
 *
 * - default (phases): where a program's time goes. compileStan (parse, check, lower), build
 *   (compileModel against its data: the trace of the program, loops unrolled or vectorized), the
 *   CPU compile of its [lp, gradient] (recordedDensity), the graph's node count, and µs of CPU per
 *   gradient (the median of 5 rounds of about 50 ms each).
 * - --sample: `ppl sample model.stan --data data.json --chains 1 --warmup 50 --draws 50 --seed 1`
 *   as a user runs it, its wall and CPU time, and whether it sampled, was refused (exit 3, the
 *   message's first line), failed otherwise, or was stopped at --limit seconds. On a machine that
 *   others load too, --cpu-limit makes the limit the command's CPU seconds (read from /proc, the
 *   command's threads included) rather than the wall clock's, with four times it as the wall's.
 *
 *   npx tsx bench/stan-corpus.ts [--sample [--cpu-limit]] [--only NAME,...] [--limit 150] [--root DIR] [--json]
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { toposort } from "../packages/tensor/src/ir-entry.ts";
import { compileModel } from "../packages/ppl/src/index.ts";
import { recordedDensity } from "../packages/ppl/src/internals.ts";
import { compileStan } from "../packages/stan/src/index.ts";

const { values: opts } = parseArgs({
  options: { sample: { type: "boolean" }, "cpu-limit": { type: "boolean" }, only: { type: "string" }, limit: { type: "string" }, root: { type: "string" }, json: { type: "boolean" }, one: { type: "string" } },
});
const root = resolve(opts.root ?? join(import.meta.dirname, "../../shared/stan-corpus"));
const limitS = Number(opts.limit ?? 150);

/** Where one program's time goes (phases mode). */
interface Phases {
  readonly name: string;
  readonly compileStanMs?: number;
  readonly buildMs?: number;
  readonly cpuCompileMs?: number;
  readonly nodes?: number;
  readonly dim?: number;
  readonly gradientUs?: number;
  readonly error?: string;
}

const cpuMicros = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** µs of CPU per gradient: the median of 5 rounds of about 50 ms each, after warm-up (200 evaluations or 1.5 s of CPU, at least 3: the JIT's tiers). */
function gradientMicros(logpGrad: (q: Float64Array, g: Float64Array) => number, dim: number): number {
  const q = Float64Array.from({ length: dim }, (_, j) => 0.1 * Math.sin(1.7 * j));
  const g = new Float64Array(dim);
  const c0 = cpuMicros();
  for (let i = 0; i < 3 || (i < 200 && cpuMicros() - c0 < 1.5e6); i++) logpGrad(q, g);
  let t0 = performance.now();
  t0 = performance.now();
  for (let i = 0; i < 3; i++) logpGrad(q, g);
  const batch = Math.max(1, Math.round((50 * 3) / Math.max(1e-3, performance.now() - t0)));
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const c0 = cpuMicros();
    for (let i = 0; i < batch; i++) logpGrad(q, g);
    rounds.push((cpuMicros() - c0) / batch);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

async function phases(name: string): Promise<Phases> {
  const dir = join(root, name);
  const text = readFileSync(join(dir, "model.stan"), "utf8");
  const data = existsSync(join(dir, "data.json")) ? (JSON.parse(readFileSync(join(dir, "data.json"), "utf8")) as Record<string, unknown>) : {};
  const out: { -readonly [K in keyof Phases]: Phases[K] } = { name };
  try {
    let t = performance.now();
    const model = compileStan(text, `${name}.stan`);
    out.compileStanMs = performance.now() - t;
    t = performance.now();
    const cm = compileModel(model, data, { allowExtraKeys: true });
    out.buildMs = performance.now() - t;
    out.dim = cm.dim;
    out.nodes = toposort([cm.logDensity]).length;
    t = performance.now();
    const rd = await recordedDensity(cm);
    out.cpuCompileMs = performance.now() - t;
    out.gradientUs = gradientMicros(rd.logpGrad, cm.dim);
  } catch (e) {
    out.error = (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300);
  }
  return out;
}

/** One program through `ppl sample` (sample mode). */
interface Sampled {
  readonly name: string;
  readonly status: "sampled" | "refused" | "failed" | "stopped";
  readonly wallS: number;
  readonly cpuS: number;
  readonly error?: string;
}

// A process's CPU seconds (user + system, all its threads), from /proc.
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function sample(name: string): Promise<Sampled> {
  const dir = join(root, name);
  const out = mkdtempSync(join(tmpdir(), "stan-corpus-"));
  const cli = join(import.meta.dirname, "../packages/cli/bin/ppl.js");
  const args = [cli, "sample", join(dir, "model.stan"), "--chains", "1", "--warmup", "50", "--draws", "50", "--seed", "1", "--output", out, "--quiet"];
  if (existsSync(join(dir, "data.json"))) args.splice(3, 0, "--data", join(dir, "data.json"));
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  let cpuS = 0;
  let stopped = false;
  const wallLimit = opts["cpu-limit"] ? 4 * limitS : limitS;
  const poll = setInterval(() => {
    cpuS = Math.max(cpuS, cpuSeconds(child.pid!));
    if ((opts["cpu-limit"] && cpuS >= limitS) || (performance.now() - t0) / 1000 >= wallLimit) {
      stopped = true;
      child.kill("SIGKILL");
    }
  }, 500);
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  clearInterval(poll);
  const wallS = (performance.now() - t0) / 1000;
  if (stopped) return { name, status: "stopped", wallS, cpuS };
  if (code === 0) return { name, status: "sampled", wallS, cpuS };
  const error = stderr.trim().split("\n").find((l) => l.trim() !== "")?.slice(0, 300);
  return { name, status: code === 3 ? "refused" : "failed", wallS, cpuS, ...(error !== undefined ? { error } : {}) };
}

if (opts.one !== undefined) {
  console.log(JSON.stringify(await phases(opts.one)));
  process.exit(0);
}

const only = opts.only?.split(",");
const names = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory() && (!only || only.includes(d.name))).map((d) => d.name).sort();
console.log(`# ${new Date().toISOString()}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}, limit ${limitS} s${opts["cpu-limit"] ? " of CPU" : ""}`);
const fmt = (x: number | undefined, digits = 0): string => (x === undefined ? "-" : x.toFixed(digits));
const rows: (Phases | Sampled)[] = [];
for (const name of names) {
  if (opts.sample) {
    const s = await sample(name);
    rows.push(s);
    if (!opts.json) console.log(`${s.status.padEnd(8)} ${s.wallS.toFixed(1).padStart(6)} s wall ${s.cpuS.toFixed(1).padStart(6)} s CPU  ${name}${s.error ? `: ${s.error}` : ""}`);
    continue;
  }
  const self = process.argv[1]!;
  const child = spawnSync(process.execPath, ["--import", "tsx", self, "--one", name, ...(opts.root ? ["--root", root] : [])], { encoding: "utf8", timeout: limitS * 1000, maxBuffer: 64 << 20 });
  const line = child.stdout.trim().split("\n").pop() ?? "";
  const p: Phases = line.startsWith("{") ? (JSON.parse(line) as Phases) : { name, error: child.signal ? `stopped at ${limitS} s` : child.stderr.trim().split("\n").slice(-2).join(" ").slice(0, 300) };
  rows.push(p);
  if (!opts.json) {
    console.log(`${name}: compileStan ${fmt(p.compileStanMs)} ms, build ${fmt(p.buildMs)} ms, cpu compile ${fmt(p.cpuCompileMs)} ms, ${fmt(p.nodes)} nodes, dim ${fmt(p.dim)}, ${fmt(p.gradientUs, 1)} µs/gradient${p.error ? `; ${p.error}` : ""}`);
  }
}
if (opts.json) console.log(JSON.stringify({ date: new Date().toISOString(), load: loadavg(), mode: opts.sample ? "sample" : "phases", rows }));
if (opts.sample && !opts.json) {
  const count = (s: Sampled["status"]) => rows.filter((r) => "status" in r && r.status === s).length;
  console.log(`sampled ${count("sampled")}, refused ${count("refused")}, failed ${count("failed")}, stopped at the limit ${count("stopped")} (of ${rows.length}); load average now ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
}
