// `ppl sample model.stan`: a Stan program is compiled by @ppl/stan and sampled like a TypeScript model.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasStackTrace, runCli, tempDir } from "./helpers.ts";

const POSTERIOR = "../shared/posteriordb/eight_schools-eight_schools_noncentered";

interface Summary { readonly [name: string]: { readonly mean: number; readonly sd: number; readonly mcse_mean: number } }

describe("ppl sample with a .stan model", () => {
  it("samples eight_schools from its Stan program and meets the posteriordb rule", async () => {
    const out = tempDir();
    const r = await runCli(["sample", `${POSTERIOR}/model.stan`, "--data", `${POSTERIOR}/data.json`, "--chains", "4", "--seed", "11", "--output", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
    const reference = (JSON.parse(readFileSync(`${POSTERIOR}/reference.json`, "utf8")) as { params: Summary }).params;
    // posteriordb's pass rule (../shared/posteriordb/README.md), parameter by parameter.
    for (const [name, ref] of Object.entries(reference)) {
      const s = summary[name]!;
      expect(Math.abs(s.mean - ref.mean), name).toBeLessThanOrEqual(4 * Math.hypot(s.mcse_mean, ref.mcse_mean));
      expect(s.sd / ref.sd, name).toBeGreaterThanOrEqual(0.8);
      expect(s.sd / ref.sd, name).toBeLessThanOrEqual(1.25);
    }
  });

  it("draws generated quantities with _rng per kept draw", async () => {
    const dir = "../shared/stan-corpus/Rate_4_data-Rate_4_model";
    const out = tempDir();
    const r = await runCli(["sample", `${dir}/model.stan`, "--data", `${dir}/data.json`, "--chains", "2", "--seed", "5", "--output", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const csv = readFileSync(join(out, "chain-1.csv"), "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    const header = csv[0]!.split(",");
    const draws = csv.slice(1).map((l) => Number(l.split(",")[header.indexOf("postpredk")]));
    // binomial_rng(n = 15, theta): whole numbers from 0 to 15.
    expect(draws.every((k) => Number.isInteger(k) && k >= 0 && k <= 15)).toBe(true);
    // Its mean is 15 times theta's, within the Monte Carlo error of both.
    const s = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
    expect(Math.abs(s["postpredk"]!.mean - 15 * s["theta"]!.mean)).toBeLessThanOrEqual(4 * Math.hypot(s["postpredk"]!.mcse_mean, 15 * s["theta"]!.mcse_mean));
  });

  it("draws _rng whose arguments read earlier draws in program order, each with its own arguments", async () => {
    const file = join(tempDir(), "chain.stan");
    writeFileSync(file, `parameters { real mu; }
model { mu ~ normal(0, 1); }
generated quantities {
  real level = normal_rng(0, 1);
  array[12] real x;
  for (i in 1:12) x[i] = normal_rng(level + 100 * i + mu, 1e-6);
  real last = normal_rng(x[12], 1e-6);
}
`);
    const out = tempDir();
    const r = await runCli(["sample", file, "--chains", "1", "--warmup", "20", "--draws", "10", "--seed", "4", "--output", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const csv = readFileSync(join(out, "chain-1.csv"), "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    const header = csv[0]!.split(",");
    for (const line of csv.slice(1)) {
      const v = (name: string) => Number(line.split(",")[header.indexOf(name)]);
      for (let i = 1; i <= 12; i++) expect(v(`x.${i}`) - v("level") - v("mu")).toBeCloseTo(100 * i, 3);
      expect(v("last") - v("x.12")).toBeCloseTo(0, 3);
    }
  });

  it("reports a Stan program's error with its file, line and column (exit 3)", async () => {
    const file = join(tempDir(), "bad.stan");
    writeFileSync(file, "parameters {\n  real mu;\n}\nmodel {\n  mu ~ normal(0, sigma);\n}\n");
    const r = await runCli(["sample", file, "--data", `${POSTERIOR}/data.json`, "--quiet"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("bad.stan:5:18: semantic error: 'sigma' is not declared");
    expect(hasStackTrace(r.stderr), r.stderr).toBe(false);
  });
});
