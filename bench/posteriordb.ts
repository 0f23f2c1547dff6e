/**
 * The posteriordb suite on the CPU backend: `pnpm posteriordb [names…] [--seed N] [--json FILE]`.
 * Samples each posterior (all eleven when none is named; a unique prefix names one), applies the
 * pass rule to every reference parameter, prints a Markdown table and exits 1 if any fails.
 */
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { DEFAULT_SEED, failureLines, posteriorNames, reportTable, resolveName, runSuite } from "../packages/ppl/src/posteriordb/index.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seed: { type: "string" },
    json: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log("usage: pnpm posteriordb [names…] [--seed N] [--json FILE]");
  process.exit(0);
}
const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
if (!Number.isSafeInteger(seed) || seed < 0) {
  console.error(`--seed must be a non-negative integer, got ${values.seed}`);
  process.exit(2);
}

let names: string[];
try {
  const all = posteriorNames();
  names = positionals.map((n) => resolveName(n, all));
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}

const started = Date.now();
const reports = await runSuite(names, {
  seed,
  onReport: (r) => {
    const line = `${r.pass ? "pass" : "FAIL"} ${r.name}: worst |z| ${r.worstZ.value.toFixed(2)} (${r.worstZ.name}), ` +
      `sd ratio ${r.worstSdRatio.value.toFixed(3)} (${r.worstSdRatio.name}), ${r.divergences} divergences, ${r.wallSeconds.toFixed(2)} s`;
    console.error(line);
    for (const f of failureLines(r)) console.error(`  ${f}`);
  },
});
const failed = reports.filter((r) => !r.pass);
console.log(`\nposteriordb on the CPU backend — seed ${seed}, ${new Date().toISOString()}, ${cpus()[0]?.model ?? "unknown CPU"} ×${cpus().length}, Node ${process.version}\n`);
console.log(reportTable(reports));
console.log(`\n${reports.length - failed.length}/${reports.length} pass; total ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (values.json) writeFileSync(values.json, JSON.stringify({ seed, reports }, null, 2));
process.exit(failed.length > 0 ? 1 : 0);
