/**
 * The tables of a record command (bench/gpu-record.sh) for bench/RESULTS.md, from its output
 * folder: the anchors ours against NumPyro's with the ratios and the bar (≥ 3× in rep 0,
 * ≥ 10× in rep 1), the device steps, the batched gradients against their floors, and posteriordb's
 * wall seconds cold and warm beside a CPU column (the CPU suite's JSON, `pnpm posteriordb --json`).
 *   npx tsx bench/record-table.ts OUT_DIR [--cpu cpu.json]
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { cpu: { type: "string" } } });
const dir = positionals[0];
if (dir === undefined) throw new Error("usage: npx tsx bench/record-table.ts OUT_DIR [--cpu cpu.json]");

type Line = Record<string, unknown>;
/** The JSON lines of a program's output (other lines are its log). */
function jsonLines(file: string): Line[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Line);
}

const CASES: readonly [string, string][] = [
  ["eight_schools_nc", "eight schools nc, 4 chains"],
  ["logistic_n100k_d100", "logistic N=100k D=100, 4 chains"],
  ["logistic_n1k_d10_x1024chains", "logistic N=1k D=10, 1024 chains"],
  ["hier_n100k_j2000", "hier N=100k J=2000, 4 chains"],
];
const ours = jsonLines(join(dir, "ours.txt"));
const numpyro = jsonLines(join(dir, "numpyro.txt"));
const runs = (lines: Line[], name: string) => lines.filter((l) => l["case"] === name && typeof l["ess_per_s"] === "number");
const num = (x: number) => x.toLocaleString("en-US", { maximumFractionDigits: 1 });

const gpu = existsSync(join(dir, "gpu.txt")) ? readFileSync(join(dir, "gpu.txt"), "utf8").trim().split("\n").slice(1).join("; ") : "unknown";
console.log(`Device: ${gpu}\n`);
console.log("| case | ours rep 0 / rep 1 (ESS/s) | NumPyro rep 0 / rep 1 (ESS/s) | ratio rep 0 / rep 1 | ≥ 3× / ≥ 10× |");
console.log("| --- | --- | --- | --- | --- |");
for (const [name, label] of CASES) {
  const a = runs(ours, name), b = runs(numpyro, name);
  if (a.length < 2 || b.length < 2) {
    console.log(`| ${label} | ${a.length} reps | ${b.length} reps | – | not run |`);
    continue;
  }
  const ess = (l: Line) => l["ess_per_s"] as number;
  const r0 = ess(a[0]!) / ess(b[0]!), r1 = ess(a[1]!) / ess(b[1]!);
  const shape = typeof a[0]!["shape"] === "string" ? ` (${a[0]!["shape"]})` : "";
  console.log(`| ${label}${shape} | ${num(ess(a[0]!))} / ${num(ess(a[1]!))} | ${num(ess(b[0]!))} / ${num(ess(b[1]!))} | ${r0.toFixed(1)}× / ${r1.toFixed(1)}× | ${r0 >= 3 && r1 >= 10 ? "met" : "**not met**"} |`);
}

// A device step: the device's wait over the steps it ran (the device shape's NUTS steps).
const steps = ours.filter((l) => typeof l["device_steps"] === "number" && (l["device_steps"] as number) > 0 && l["shape"] === "device");
if (steps.length > 0) {
  console.log("\nDevice steps (µs, wait over steps): " + steps.map((l) => `${l["case"]} rep ${l["rep"]} ${(((l["wait_s"] as number) / (l["device_steps"] as number)) * 1e6).toFixed(1)}`).join(", "));
}

const gradients = ours.filter((l) => l["bench"] === "batched_gradient");
if (gradients.length > 0) {
  console.log("\n| batched gradient | µs | floor with a dispatch, µs | × floor |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const g of gradients) console.log(`| ${g["case"]} | ${g["us_per_gradient"]} | ${g["floor_us_with_a_dispatch"]} | ${g["times_floor_with_a_dispatch"]}× |`);
}

/** Each posterior's result and wall seconds from a posteriordb program's Markdown table. */
function posteriordbTable(file: string): Map<string, { pass: boolean; wall: number }> {
  const rows = new Map<string, { pass: boolean; wall: number }>();
  if (!existsSync(file)) return rows;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    // | posterior | result | worst |z| | sd ratio | divergences | gradients | wall s | settings |
    if (cells.length < 9 || cells[1] === "posterior" || cells[1]!.startsWith("---")) continue;
    const wall = Number(cells[7]);
    if (Number.isFinite(wall)) rows.set(cells[1]!, { pass: cells[2] === "pass", wall });
  }
  return rows;
}
const cold = posteriordbTable(join(dir, "posteriordb-cold.txt"));
const warm = posteriordbTable(join(dir, "posteriordb-warm.txt"));
const cpu = new Map<string, number>();
if (values.cpu !== undefined) {
  const { reports } = JSON.parse(readFileSync(values.cpu, "utf8")) as { reports: { name: string; wallSeconds: number }[] };
  for (const r of reports) cpu.set(r.name, r.wallSeconds);
}
if (cold.size > 0) {
  const passes = (t: Map<string, { pass: boolean }>) => `${[...t.values()].filter((r) => r.pass).length}/${t.size}`;
  console.log(`\nposteriordb, wall seconds: cold ${passes(cold)} pass, warm ${passes(warm)} pass`);
  console.log("\n| posterior | CPU | cold | warm |");
  console.log("| --- | ---: | ---: | ---: |");
  const cell = (r: { pass: boolean; wall: number } | undefined) => (r === undefined ? "–" : `${r.wall.toFixed(1)}${r.pass ? "" : " FAIL"}`);
  for (const [name, r] of cold) {
    const c = cpu.get(name);
    console.log(`| ${name} | ${c === undefined ? "–" : c.toFixed(1)} | ${cell(r)} | ${cell(warm.get(name))} |`);
  }
}
