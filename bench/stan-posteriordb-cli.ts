/**
 * The reference posteriors through their Stan programs, as a user runs them: `ppl sample
 * model.stan --data data.json --chains 4 --seed 7 [--backend B]` for each, then posteriordb's pass
 * rule (packages/ppl/src/posteriordb/pass-rule.ts) on its summary.json. Prints one JSON line per
 * posterior: its wall time (the whole command: compile, warmup, draws, summary), pass or the
 * parameters that fail, or the command's last error line.
 *
 *   npx tsx bench/stan-posteriordb-cli.ts [--backend cpu|vulkan] [--only NAME,...] [--cli "node packages/cli/bin/ppl.js"]
 *     [--root DIR] (DIR/posteriordb/<name>/ and DIR/posteriordb-ode/<name>/ with model.stan, data.json, reference.json; default ../shared)
 * On the GPU machine (bench/build-gpu.sh copies the programs):
 *   node .gpuout/stan-posteriordb-cli.mjs --backend vulkan --root .gpuout --cli "node .gpuout/cli/ppl.mjs"
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { checkParameter } from "../packages/ppl/src/posteriordb/pass-rule.ts";
import type { ReferenceParameter } from "../packages/ppl/src/posteriordb/reference.ts";

const { values: opts } = parseArgs({ options: { backend: { type: "string" }, only: { type: "string" }, cli: { type: "string" }, root: { type: "string" } } });
const root = resolve(opts.root ?? join(import.meta.dirname, "../../shared"));
const cli = (opts.cli ?? `node ${join(import.meta.dirname, "../packages/cli/bin/ppl.js")}`).split(" ");
const only = opts.only?.split(",");

interface Stats { readonly mean: number; readonly sd: number; readonly mcse_mean: number }

const dirs = ["posteriordb", "posteriordb-ode"].flatMap((set) =>
  existsSync(join(root, set)) ? readdirSync(join(root, set)).map((n) => join(root, set, n)).filter((d) => existsSync(join(d, "model.stan"))) : [],
);
for (const dir of dirs) {
  const name = dir.split("/").pop()!;
  if (only && !only.includes(name)) continue;
  const out = mkdtempSync(join(tmpdir(), "stan-posteriordb-"));
  const args = [...cli.slice(1), "sample", join(dir, "model.stan"), "--data", join(dir, "data.json"), "--chains", "4", "--seed", "7", "--output", out, "--quiet"];
  if (opts.backend) args.push("--backend", opts.backend);
  const t0 = performance.now();
  const r = spawnSync(cli[0]!, args, { encoding: "utf8", maxBuffer: 64 << 20 });
  const wallS = (performance.now() - t0) / 1000;
  if (r.status !== 0) {
    const last = (r.stderr ?? "").trim().split("\n").pop();
    console.log(JSON.stringify({ name, backend: opts.backend ?? "auto", wall_s: wallS, exit: r.status, error: last }));
    continue;
  }
  const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Record<string, Stats>;
  const reference = (JSON.parse(readFileSync(join(dir, "reference.json"), "utf8")) as { params: Record<string, ReferenceParameter> }).params;
  const failed = Object.entries(reference).flatMap(([p, ref]) => {
    const s = summary[p];
    const c = s ? checkParameter(p, { mean: s.mean, sd: s.sd, mcseMean: s.mcse_mean }, ref) : undefined;
    return c?.pass ? [] : [{ param: p, z: c?.z, sd_ratio: c?.sdRatio }];
  });
  console.log(JSON.stringify({ name, backend: opts.backend ?? "auto", wall_s: wallS, pass: failed.length === 0, failed }));
}
