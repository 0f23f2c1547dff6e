// Prints how far each Stan program of ../shared (posteriordb, posteriordb-ode, stan-corpus) gets
// through @ppl/stan: parse, check, compile (compileStan), build against its data (compileModel) and
// a finite log density at the origin of the unconstrained space; then the failures grouped by the
// construct they need. Each program runs in a process of its own, stopped after LIMIT_S seconds
// (a loop unrolled into a very long trace shows as such). Run: pnpm --filter @ppl/stan status (or tsx packages/stan/scripts/corpus-status.ts).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compileModel } from "@ppl/ppl";
import { getBackend } from "@ppl/tensor";
import { checkStan, compileStan, parseStan, SourceFile } from "../src/index.ts";

const SHARED = fileURLToPath(new URL("../../../../shared/", import.meta.url));
const SETS = ["posteriordb", "posteriordb-ode", "stan-corpus"];
const STAGES = ["parse", "check", "compile", "build", "evaluate"] as const;
type Stage = (typeof STAGES)[number];

interface Row { readonly set: string; readonly name: string; readonly reached: Stage | "none"; readonly error?: string }

// The construct an error names, for grouping: the function or distribution, or the kind of limit.
function feature(message: string): string {
  const body = message.replace(/^.*?: (syntax error|semantic error|not supported): /, "");
  const named = /(the function|the distribution|random draws \() ?'([^']+)'/.exec(body);
  if (named) return named[1]!.startsWith("random") ? "_rng (random draws in generated quantities)" : `${named[1]!.replace("the ", "")} ${named[2]}`;
  const loop = /a loop traced one iteration at a time .*\(it cannot run vectorized: (.*)\); write/.exec(body);
  if (loop) return `a loop that cannot run vectorized and unrolls too long (${loop[1]!.replace(/'[^']*'/g, "…")})`;
  if (/must be known before sampling/.test(body)) return "a loop bound, size or condition that depends on parameters";
  if (/size must be a number or the name/.test(body)) return "a data size given by an expression";
  if (/complex/.test(body)) return "complex numbers";
  return body.replace(/ — at: .*$/, "").slice(0, 100);
}

async function run(set: string, name: string): Promise<Row> {
  const dir = `${SHARED}${set}/${name}`;
  const text = readFileSync(`${dir}/model.stan`, "utf8");
  let reached: Row["reached"] = "none";
  try {
    const program = parseStan(text, `${name}.stan`);
    reached = "parse";
    checkStan(program, new SourceFile(text, `${name}.stan`));
    reached = "check";
    const model = compileStan(text, `${name}.stan`);
    reached = "compile";
    const data = existsSync(`${dir}/data.json`) ? (JSON.parse(readFileSync(`${dir}/data.json`, "utf8")) as unknown) : {};
    const m = compileModel(model, data, { allowExtraKeys: true });
    reached = "build";
    const exe = (await getBackend("cpu")).compileSync!([m.logDensity]);
    const [lp] = exe.runSync!({ ...m.dataBindings, q: { dtype: "f64", shape: [m.dim], data: new Float64Array(m.dim) } });
    if (!Number.isFinite(lp!.data[0]!)) throw new Error(`the log density at the origin is ${lp!.data[0]}`);
    reached = "evaluate";
    return { set, name, reached };
  } catch (e) {
    return { set, name, reached, error: e instanceof Error ? e.message : String(e) };
  }
}

const LIMIT_S = 240;

// In a child process: one program, its row as JSON on stdout.
if (process.argv[2] === "--one") {
  const [set, name] = process.argv[3]!.split("/") as [string, string];
  console.log(JSON.stringify(await run(set, name)));
  process.exit(0);
}

const rows: Row[] = [];
for (const set of SETS) {
  for (const d of readdirSync(`${SHARED}${set}`, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--one", `${set}/${d.name}`], { encoding: "utf8", timeout: LIMIT_S * 1000 });
    const line = child.stdout.trim().split("\n").pop() ?? "";
    const row: Row = line.startsWith("{")
      ? (JSON.parse(line) as Row)
      : { set, name: d.name, reached: "none", error: child.signal ? `tracing and evaluating took longer than ${LIMIT_S} s (loops unrolled into a long trace)` : child.stderr.trim().split("\n").slice(-3).join(" ") };
    rows.push(row);
    console.log(`${row.reached === "evaluate" ? "ok  " : "FAIL"} ${set}/${row.name}${row.error ? `: ${row.error.split("\n")[0]!.slice(0, 220)}` : ""}`);
  }
}

console.log("\n| set | programs | parse | check | compile | build | evaluate |\n| --- | --- | --- | --- | --- | --- | --- |");
for (const set of SETS) {
  const of = rows.filter((r) => r.set === set);
  const count = (s: Stage) => of.filter((r) => r.reached !== "none" && STAGES.indexOf(r.reached) >= STAGES.indexOf(s)).length;
  console.log(`| ${set} | ${of.length} | ${STAGES.map(count).join(" | ")} |`);
}

const groups = new Map<string, string[]>();
for (const r of rows) if (r.error) groups.set(feature(r.error), [...(groups.get(feature(r.error)) ?? []), r.name]);
console.log("\n| missing feature | programs |\n| --- | --- |");
for (const [f, names] of [...groups].sort((a, b) => b[1].length - a[1].length)) console.log(`| ${f} | ${names.length}: ${names.join(", ")} |`);
