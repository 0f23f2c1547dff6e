// `ppl sample --algorithm chees`: many chains of ChEES-HMC through the command, with superchains
// and their nested R-hat; eight_schools_noncentered meets the posteriordb rule at 256 chains.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "./helpers.ts";

const POSTERIOR = "../shared/posteriordb/eight_schools-eight_schools_noncentered";
const LONG = process.env.PPL_LONG === "1";

interface Summary { readonly [name: string]: { readonly mean: number; readonly sd: number; readonly mcse_mean: number } }

function expectPosteriordbRule(out: string): void {
  const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
  const reference = (JSON.parse(readFileSync(`${POSTERIOR}/reference.json`, "utf8")) as { params: Summary }).params;
  // posteriordb's pass rule (../shared/posteriordb/README.md), parameter by parameter.
  for (const [name, ref] of Object.entries(reference)) {
    const s = summary[name]!;
    expect(Math.abs(s.mean - ref.mean), name).toBeLessThanOrEqual(4 * Math.hypot(s.mcse_mean, ref.mcse_mean));
    expect(s.sd / ref.sd, name).toBeGreaterThanOrEqual(0.8);
    expect(s.sd / ref.sd, name).toBeLessThanOrEqual(1.25);
  }
}

describe("ppl sample --algorithm chees", () => {
  it("samples eight_schools_noncentered with 256 chains in 16 superchains, meets the posteriordb rule and prints nested R-hat", async () => {
    const out = tempDir();
    const r = await runCli([
      "sample", `${POSTERIOR}/model.stan`, "--data", `${POSTERIOR}/data.json`, "--algorithm", "chees", "--chains", "256", "--superchains", "16",
      "--warmup", "300", "--draws", "100", "--seed", "3", "--output", out, "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expectPosteriordbRule(out);
    expect(r.stdout).toContain("nested R-hat (16 superchains of 16 chains):");
    const tau = /^ {2}tau +(\d\.\d{4})$/m.exec(r.stdout);
    expect(tau, r.stdout).not.toBeNull();
    expect(Number(tau![1])).toBeLessThan(1.01);
    // summary.json carries the same value as rhat_nested.
    const json = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Record<string, { rhat_nested?: number }>;
    expect(json["tau"]!.rhat_nested!.toFixed(4)).toBe(tau![1]);
    expect(readFileSync(join(out, "chain-256.csv"), "utf8")).toContain("sampling_method = chees");
  });

  it("refuses superchains that do not divide the chains, a GPU shape (its transitions run on the host) and a dense metric", async () => {
    const r = await runCli(["sample", `${POSTERIOR}/model.stan`, "--data", `${POSTERIOR}/data.json`, "--algorithm", "chees", "--chains", "10", "--superchains", "4", "--output", tempDir(), "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--superchains 4 does not divide --chains 10");
    const g = await runCli(["sample", `${POSTERIOR}/model.stan`, "--data", `${POSTERIOR}/data.json`, "--algorithm", "chees", "--backend", "vulkan", "--gpu-shape", "device", "--output", tempDir(), "--quiet"]);
    expect(g.code).toBe(2);
    expect(g.stderr).toContain("--algorithm chees runs its transitions on the host over the GPU's batched gradient: drop --gpu-shape");
    const d = await runCli(["sample", `${POSTERIOR}/model.stan`, "--data", `${POSTERIOR}/data.json`, "--algorithm", "chees", "--metric", "dense", "--output", tempDir(), "--quiet"]);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain("drop --metric dense");
  });

  it.runIf(LONG)("1024 chains of eight_schools_noncentered meet the posteriordb rule (PPL_LONG=1)", async () => {
    const out = tempDir();
    const r = await runCli([
      "sample", `${POSTERIOR}/model.stan`, "--data", `${POSTERIOR}/data.json`, "--algorithm", "chees", "--chains", "1024", "--superchains", "32",
      "--warmup", "500", "--draws", "200", "--seed", "7", "--output", out, "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expectPosteriordbRule(out);
  }, 600_000);
});
