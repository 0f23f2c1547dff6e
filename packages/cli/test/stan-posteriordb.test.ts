// The posteriordb Stan programs through `ppl sample model.stan` on the CPU, each against its
// reference under posteriordb's rule (../shared/posteriordb/README.md). Minutes in all: PPL_LONG=1.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "./helpers.ts";

const LONG = process.env.PPL_LONG === "1";

// The programs that sample in minutes on the CPU (the ODE posteriors are left to the bench;
// diamonds through its Stan program ran over 12 minutes: its trajectories are long). hmm_example
// (a minute since its forward loop runs as a scan) and gp_pois_regr (three minutes) pass too.
const FAST = [
  "eight_schools-eight_schools_noncentered", "kidiq-kidscore_interaction", "earnings-logearn_interaction", "mesquite-logmesquite", "arK-arK",
  "garch-garch11", "sblrc-blr", "low_dim_gauss_mix-low_dim_gauss_mix", "hmm_example-hmm_example", "gp_pois_regr-gp_pois_regr",
];

interface Summary { readonly [name: string]: { readonly mean: number; readonly sd: number; readonly mcse_mean: number } }

describe("posteriordb's Stan programs through ppl sample (PPL_LONG=1)", () => {
  it.runIf(LONG).each(FAST)("%s meets the posteriordb rule", async (name) => {
    const dir = `../shared/posteriordb/${name}`;
    const out = tempDir();
    const r = await runCli(["sample", `${dir}/model.stan`, "--data", `${dir}/data.json`, "--chains", "4", "--seed", "7", "--output", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
    const reference = (JSON.parse(readFileSync(`${dir}/reference.json`, "utf8")) as { params: Summary }).params;
    for (const [param, ref] of Object.entries(reference)) {
      const s = summary[param];
      expect(s, `${param} is in the summary`).toBeDefined();
      expect(Math.abs(s!.mean - ref.mean), param).toBeLessThanOrEqual(4 * Math.hypot(s!.mcse_mean, ref.mcse_mean));
      expect(s!.sd / ref.sd, param).toBeGreaterThanOrEqual(0.8);
      expect(s!.sd / ref.sd, param).toBeLessThanOrEqual(1.25);
    }
  }, 900_000);
});
