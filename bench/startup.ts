/**
 * Whole-process wall time of the README's first command and of `ppl summary` on its output, as a
 * user sees it: `ppl sample examples/eight_schools.ts --data examples/eight_schools.json` (4 chains
 * × (1000 + 1000), the default backend choice) and `ppl summary DIR`, plus `ppl --help` (start-up
 * alone). Each is run RUNS times, alternating, from the repository root; prints min, median and max
 * of the wall time, and the median CPU time (user + system, from /usr/bin/time: on a machine shared
 * with other work the wall time varies with the load far more than the CPU time does).
 *
 *   tsx bench/startup.ts [--ppl PATH_TO_bin/ppl.js] [--runs 9]
 *
 * --ppl runs another checkout's launcher (for before/after comparisons); its examples are those of
 * the checkout the launcher lies in.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};
const launcher = resolve(option("--ppl", fileURLToPath(new URL("../packages/cli/bin/ppl.js", import.meta.url))));
const root = resolve(dirname(launcher), "../../..");
const runs = Number(option("--runs", "9"));
const out = mkdtempSync(join(tmpdir(), "ppl-startup-"));

const commands: Record<string, string[]> = {
  sample: ["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--output", out],
  summary: ["summary", out],
  help: ["--help"],
};
const wall: Record<string, number[]> = { sample: [], summary: [], help: [] };
const cpu: Record<string, number[]> = { sample: [], summary: [], help: [] };
for (let r = 0; r < runs; r++) {
  for (const [name, argv] of Object.entries(commands)) {
    const t = performance.now();
    // /usr/bin/time adds one line to stderr: the child's user and system CPU seconds.
    const p = spawnSync("/usr/bin/time", ["-f", "%U %S", process.execPath, launcher, ...argv], { cwd: root, encoding: "utf8" });
    wall[name]!.push((performance.now() - t) / 1000);
    if (p.status !== 0) throw new Error(`ppl ${argv.join(" ")} exited with ${p.status}: ${p.stderr}`);
    const [user, system] = p.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
    cpu[name]!.push(user! + system!);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${launcher} (${runs} runs each)`);
for (const [name, ts] of Object.entries(wall)) {
  const s = [...ts].sort((a, b) => a - b);
  console.log(`${name.padEnd(8)} wall min ${s[0]!.toFixed(2)} s  median ${median(ts).toFixed(2)} s  max ${s.at(-1)!.toFixed(2)} s   CPU median ${median(cpu[name]!).toFixed(2)} s`);
}
