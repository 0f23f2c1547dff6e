// `ppl variational` (meanfield) on kidiq_interaction and earnings against posteriordb's reference
// (PPL_LONG=1, about six minutes): every parameter's mean within 0.5 reference sd. Both
// posteriors have coefficients with multiple correlations above 0.99, along whose ridge the noisy
// ascent moves slowly: with CmdStan's defaults the relative ELBO test stops it (or --iter 10000
// does) with means several reference sds off (docs/variational.md has the numbers), so each run
// here takes 10 draws a gradient and 300000 iterations with a tolerance it does not reach (exit 5,
// the file marked as not converged): what is checked is where meanfield ADVI gets to, not when
// Stan's test stops it. The settings differ per posterior: docs/variational.md lists every setting
// tried with seed 1 (no one setting passed both: on earnings the adapted η = 10 leaves log σ
// unsettled, on kidiq η = 1 leaves the means 0.6 sd off); the seed here is another, 2.
// The sds are not checked: meanfield's optimum underestimates correlated marginals by design.
// Measured (seed 2): kidiq passes (largest |z| 0.055); earnings' coefficients pass (largest 0.32)
// and its σ does not (0.551): docs/variational.md, "posteriordb".
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fromStanCsvName } from "@ppl/ppl";
import { readCsv, runCli, tempDir } from "./helpers.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";

interface Reference { readonly [name: string]: { readonly mean: number; readonly sd: number } }

describe("ppl variational on posteriordb", () => {
  const LONG_RUN = ["--grad-samples", "10", "--iter", "300000", "--tol-rel-obj", "0.0001"];
  it.runIf(LONG).each([
    ["kidiq-kidscore_interaction", LONG_RUN],
    ["earnings-logearn_interaction", [...LONG_RUN, "--no-adapt-engaged", "--eta", "1"]],
  ] as const)("%s: meanfield means within 0.5 reference sd (PPL_LONG=1)", async (posterior, settings) => {
    const dir = `../shared/posteriordb/${posterior}`;
    const out = tempDir("ppl-variational-pdb-");
    const r = await runCli(["variational", `${dir}/model.stan`, "--data", `${dir}/data.json`, "--seed", "2", ...settings, "-o", out, "--quiet"]);
    expect([0, 5], r.stderr).toContain(r.code);
    const csv = readCsv(join(out, "variational.csv"));
    const reference = (JSON.parse(readFileSync(`${dir}/reference.json`, "utf8")) as { params: Reference }).params;
    const z: Record<string, number> = {};
    csv.columns.forEach((c, j) => {
      const ref = reference[fromStanCsvName(c)];
      if (ref === undefined) return;
      const draws = csv.draws[j]!.subarray(1);
      z[fromStanCsvName(c)] = (draws.reduce((a, b) => a + b, 0) / draws.length - ref.mean) / ref.sd;
    });
    expect(Object.keys(z).sort()).toEqual(Object.keys(reference).sort());
    console.log(`${posterior}: ${Object.entries(z).map(([n, v]) => `${n} ${v.toFixed(3)}`).join(", ")} reference sd`);
    for (const [name, v] of Object.entries(z)) expect(Math.abs(v), `${name}: ${v.toFixed(3)} reference sd`).toBeLessThan(0.5);
  }, 600_000);
});
