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

  it("reports a Stan program's error with its file, line and column (exit 3)", async () => {
    const file = join(tempDir(), "bad.stan");
    writeFileSync(file, "parameters {\n  real mu;\n}\nmodel {\n  mu ~ normal(0, sigma);\n}\n");
    const r = await runCli(["sample", file, "--data", `${POSTERIOR}/data.json`, "--quiet"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("bad.stan:5:18: semantic error: 'sigma' is not declared");
    expect(hasStackTrace(r.stderr), r.stderr).toBe(false);
  });
});
