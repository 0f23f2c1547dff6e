/**
 * The table of a target-ESS record (bench/gpu-target.sh) from its output folder: for each anchor,
 * every sampler's wall seconds to the target (rep 0 with the kernels' and JAX's compilation, rep 1
 * with them cached), the checks' share, and the ratios of rep 1 against our NUTS with 4 chains and
 * against NumPyro's; then the goal of many-chain methods (≥ 10× our NUTS-4 and ≥ 50× NumPyro's).
 *   npx tsx bench/target-table.ts OUT_DIR
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One JSON line of bench/anchor-target.ts or bench/numpyro_target.py. */
interface TargetLine {
  readonly case: string;
  readonly method: string;
  readonly chains: number;
  readonly rep: number;
  readonly available: boolean;
  readonly reason?: string;
  readonly reached?: boolean;
  readonly wall_s?: number;
  readonly check_s?: number;
  readonly draws?: number;
  readonly min_ess?: number | null;
  readonly max_rhat_nested?: number | null;
  readonly cap_s?: number;
  readonly stopped?: string;
  readonly error?: string;
}

/** The target-ESS lines of every `ours-*.txt` and `numpyro-*.txt` in a folder (other lines are logs). */
function readTargetLines(dir: string): TargetLine[] {
  return readdirSync(dir)
    .filter((f) => /^(ours|numpyro)-.*\.txt$/.test(f))
    .flatMap((f) => readFileSync(join(dir, f), "utf8").split("\n"))
    .filter((l) => l.startsWith("{") && l.includes('"target_ess"'))
    .map((l) => JSON.parse(l) as TargetLine);
}

/** A configuration's repetitions: rep 0 and rep 1 where they ran. */
interface Config {
  readonly method: string;
  readonly chains: number;
  readonly reps: TargetLine[];
}

/** The warm repetition (rep 1, else rep 0) when it reached the target. */
function warmReached(c: Config | undefined): TargetLine | undefined {
  const r = c?.reps.find((l) => l.rep === 1) ?? c?.reps.find((l) => l.rep === 0);
  return r?.reached ? r : undefined;
}

/** Its seconds to the target, and the same without the checks' own. */
const seconds = (l: TargetLine | undefined) => l?.wall_s;
const sampling = (l: TargetLine | undefined) => (l === undefined ? undefined : l.wall_s! - (l.check_s ?? 0));

const MANY_CHAIN = new Set(["chees", "meads"]);

function configsOf(lines: readonly TargetLine[], name: string): Config[] {
  const configs = new Map<string, Config>();
  for (const l of lines.filter((x) => x.case === name)) {
    const key = `${l.method}:${l.chains}`;
    if (!configs.has(key)) configs.set(key, { method: l.method, chains: l.chains, reps: [] });
    configs.get(key)!.reps.push(l);
  }
  return [...configs.values()];
}

function cell(l: TargetLine | undefined): string {
  if (l === undefined) return "–";
  if (!l.available) return "n/a";
  if (l.error !== undefined) return `error: ${l.error.replaceAll("|", "\\|")}`;
  return l.reached ? l.wall_s!.toFixed(2) : `not reached (${l.cap_s ?? "?"} s cap)`;
}

const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a / b);
// Two significant digits below 10 (a slower configuration shows 0.031×, not 0.0×).
const times = (x: number | undefined) => (x === undefined ? "–" : `${x >= 10 ? x.toFixed(1) : x.toPrecision(2)}×`);

/** Prints the table of one folder. */
function printTable(dir: string): void {
  const lines = readTargetLines(dir);
  const gpu = existsSync(join(dir, "gpu.txt")) ? readFileSync(join(dir, "gpu.txt"), "utf8").trim().split("\n").slice(1).join("; ") : "unknown";
  console.log(`Device: ${gpu}\n`);
  console.log("| case | sampler | chains | rep 0 s | rep 1 s | checks s (rep 1) | draws a chain | min bulk ESS | max nested R-hat | ours NUTS-4 ÷ this | NumPyro ÷ this |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const goals: string[] = [];
  for (const name of [...new Set(lines.map((l) => l.case))]) {
    const configs = configsOf(lines, name);
    const nuts4 = warmReached(configs.find((c) => c.method === "nuts" && c.chains === 4));
    const numpyro = warmReached(configs.find((c) => c.method === "numpyro_nuts"));
    for (const c of configs) {
      const [r0, r1] = [c.reps.find((l) => l.rep === 0), c.reps.find((l) => l.rep === 1)];
      const warm = r1 ?? r0;
      if (warm && !warm.available) {
        console.log(`| ${name} | ${c.method} | ${c.chains} | not available: ${(warm.reason ?? "").replaceAll("|", "\\|")} | | | | | | | |`);
        continue;
      }
      const w = warmReached(c);
      const rhat = warm?.max_rhat_nested;
      console.log(`| ${name} | ${c.method} | ${c.chains} | ${cell(r0)} | ${cell(r1)} | ${warm?.check_s?.toFixed(2) ?? "–"} | ${warm?.draws ?? "–"} | ${warm?.min_ess ?? "–"} | ${rhat ?? "–"} | ${times(ratio(seconds(nuts4), seconds(w)))} | ${times(ratio(seconds(numpyro), seconds(w)))} |`);
    }
    // The goal: the best many-chain configuration against both.
    const best = configs.map((c) => ({ c, l: warmReached(c) })).filter((x) => MANY_CHAIN.has(x.c.method) && x.l !== undefined).sort((a, b) => a.l!.wall_s! - b.l!.wall_s!)[0];
    if (best === undefined) goals.push(`${name}: no ChEES or MEADS run reached the target`);
    else {
      const [vsNuts, vsNumpyro] = [ratio(seconds(nuts4), seconds(best.l)), ratio(seconds(numpyro), seconds(best.l))];
      const met = vsNuts !== undefined && vsNumpyro !== undefined && vsNuts >= 10 && vsNumpyro >= 50;
      // The same without any side's checks: what the samplers took, the diagnostics left out.
      const bare = `${times(ratio(sampling(nuts4), sampling(best.l)))} / ${times(ratio(sampling(numpyro), sampling(best.l)))}`;
      goals.push(`${name}: best ${best.c.method} ${best.c.chains} chains, ${times(vsNuts)} our NUTS-4, ${times(vsNumpyro)} NumPyro: ${met ? "met" : "**not met**"} (without the checks: ${bare})`);
    }
  }
  console.log("\nGoal (≥ 10× our NUTS-4 and ≥ 50× NumPyro's, rep 1):\n" + goals.map((g) => `- ${g}`).join("\n"));
}

const dir = process.argv[2];
if (dir === undefined) throw new Error("usage: npx tsx bench/target-table.ts OUT_DIR");
printTable(dir);
