// `ppl variational` (meanfield) on kidiq_interaction and earnings against posteriordb's reference
// (PPL_LONG=1, about four minutes): every parameter's mean within 0.5 reference sd, as issue 45's
// Done-when asks. Meanfield's optimum meets that rule on both: for these regressions with flat
// priors it is in closed form, its coefficient means the posterior's exactly and its σ mean within
// 0.01 reference sd of the reference (docs/variational.md). What keeps ADVI from it is the
// stochastic ascent: both posteriors have coefficients with multiple correlations above 0.99,
// along whose ridge the noisy ascent moves slowly, so with CmdStan's defaults the relative ELBO test
// stops it (or --iter 10000 does) with means several reference sds off (docs/variational.md has the
// numbers). Each run here therefore takes 10 draws a gradient and 300000 iterations with a
// tolerance it does not reach (exit 5, the file marked as not converged): what is checked is where
// meanfield ADVI gets to, not when Stan's test stops it. The step size differs per posterior, for
// a reason: kidiq's ridge needs the adapted η (10; at η = 0.3 its means are 1.5 sd off), while on
// earnings the ascent's noise across the posterior's thin directions puts the coefficients' mean at
// a Mahalanobis distance D from the posterior's, which raises σ's by about D²/√(2N) reference sd
// (D² 29 at η = 1: σ 0.55 sd high, the coefficients within 0.32; D² 5.6 at η = 0.3: σ 0.11;
// η = 0.1 leaves the ridge unfinished, 0.65 sd). With η = 0.3 earnings passes on seeds 1, 2 and 3
// (largest |z| 0.33, 0.32, 0.42). The sds are not checked: meanfield's optimum underestimates
// correlated marginals by design (to 3% of the reference on earnings).
//
// By default (seconds): kidiq with CmdStan's defaults, where the relative ELBO test stops the run
// long before --iter, as Stan's stops it (fixtures/variational/advi-rstan.R runs rstan's vb() with
// the same defaults; its means at the stop are 1-4 reference sds off, as these are: the 0.5-sd
// rule and Stan's stopping rule are not met together on this posterior, docs/variational.md).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fromStanCsvName } from "@ppl/ppl";
import { variationalCommand } from "../src/commands/variational.ts";
import { readCsv, runCli, tempDir } from "./helpers.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";

interface Reference { readonly [name: string]: { readonly mean: number; readonly sd: number } }

describe("ppl variational on posteriordb", () => {
  it("kidiq with CmdStan's defaults: the median relative ELBO test stops the run at iteration 900 of 10000 (seed 1)", async () => {
    const dir = "../shared/posteriordb/kidiq-kidscore_interaction";
    const out = tempDir("ppl-variational-defaults-");
    let stderr = "";
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) } };
    const code = await variationalCommand(`${dir}/model.stan`, {
      data: `${dir}/data.json`, algorithm: "meanfield", iter: 10000, gradSamples: 1, elboSamples: 100, eta: 1, adaptEngaged: true, adaptIter: 50,
      tolRelObj: 0.01, evalElbo: 100, draws: 1000, init: 2, seed: 1, output: out, quiet: false, backend: "cpu",
    }, io);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/^ {3}900 +-\d+\.\d+ +\S+ +0\.009 {3}MEDIAN ELBO CONVERGED$/m);
    expect(stderr).toMatch(/converged: the median relative ELBO change 0\.009\d+ is below --tol-rel-obj 0\.01; 900 iterations \(eta 1\)/);
    const text = readFileSync(join(out, "variational.csv"), "utf8");
    expect(text).not.toMatch(/did not converge/);
    expect(readCsv(join(out, "variational.csv")).draws[0]!.length).toBe(1001);
  }, 120_000);


  const LONG_RUN = ["--grad-samples", "10", "--iter", "300000", "--tol-rel-obj", "0.0001"];
  it.runIf(LONG).each([
    ["kidiq-kidscore_interaction", LONG_RUN],
    ["earnings-logearn_interaction", [...LONG_RUN, "--no-adapt-engaged", "--eta", "0.3"]],
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
