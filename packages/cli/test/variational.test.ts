// `ppl variational` as a user runs it: CmdStan's variational.csv (lp__, log_p__, log_g__, the
// approximation's mean as the first row, then the draws), a normal posterior approximated by the
// posteriordb rule, the seed reproducing the file, a run stopped by --iter (exit 5, its file marked),
// and a model without parameters (exit 3, no file).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCsv, runCli, tempDir } from "./helpers.ts";
import { normalPosterior, POST_MEAN, POST_SD, writeModelFile } from "./normal-posterior.ts";

const tmp = tempDir("ppl-variational-");
const modelFile = (name: string, body: string): string => writeModelFile(tmp, name, body);
const { model: NORMAL, data: DATA } = normalPosterior(tmp);

const moments = (x: Float64Array) => {
  const mean = x.reduce((a, b) => a + b, 0) / x.length;
  return { mean, sd: Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / (x.length - 1)) };
};

describe("ppl variational", () => {
  it.each(["meanfield", "fullrank"])("%s: CmdStan's layout, the mean first, draws around it; the posterior by the posteriordb rule", async (algorithm) => {
    const out = join(tmp, algorithm);
    const draws = 2000;
    const r = await runCli(["variational", NORMAL, "--data", DATA, "-o", out, "--algorithm", algorithm, "--draws", String(draws), "--seed", "5"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/ELBO CONVERGED/);
    expect(r.stdout).toMatch(/^variable\s+mean\s+sd\s+5%\s+50%\s+95%\nmu\s/);
    const csv = readCsv(join(out, "variational.csv"));
    expect(csv.columns).toEqual(["lp__", "log_p__", "log_g__", "mu", "twice"]);
    expect(csv.config["method"]).toBe("variational");
    expect(csv.config["algorithm"]).toBe(algorithm);
    expect(csv.timing).toBeDefined();
    const [lp, logP, logG, mu, twice] = csv.draws as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
    expect(mu.length).toBe(draws + 1);
    expect([lp[0], logP[0], logG[0]]).toEqual([0, 0, 0]);
    expect(lp.every((v) => v === 0)).toBe(true);
    twice.forEach((t, i) => expect(t).toBeCloseTo(2 * mu[i]!, 12));
    // The draws come from a normal centred on the first row: their mean within 4 Monte Carlo errors.
    const d = moments(mu.subarray(1));
    expect(Math.abs(d.mean - mu[0]!)).toBeLessThan((4 * d.sd) / Math.sqrt(draws));
    // The fit against the exact posterior: mean within 0.5 sd, sd ratio in [0.8, 1.25] (posteriordb's rule for approximations).
    expect(Math.abs(mu[0]! - POST_MEAN) / POST_SD).toBeLessThan(0.5);
    expect(d.sd / POST_SD).toBeGreaterThan(0.8);
    expect(d.sd / POST_SD).toBeLessThan(1.25);
    // log_g__ is −½ηᵀη of the standard normal behind each draw: in one dimension −½((μ − m)/σ)², σ
    // estimated by the draws' sd (within 4/√(2·2000) ≈ 9% relative, so ½η² within 20%).
    for (let i = 1; i <= 20; i++) {
      const half = 0.5 * ((mu[i]! - mu[0]!) / d.sd) ** 2;
      expect(Math.abs(logG[i]! + half)).toBeLessThanOrEqual(0.2 * half + 1e-12);
    }
    expect(logP.subarray(1).every(Number.isFinite)).toBe(true);
  });

  it("a seed gives the same file; --iter reached first exits 5 naming the criterion, the file marked as not converged", async () => {
    const args = (out: string, more: string[] = []) => ["variational", NORMAL, "--data", DATA, "-o", out, "--draws", "20", "--seed", "9", ...more];
    const [a, b] = [join(tmp, "seed-a"), join(tmp, "seed-b")];
    expect((await runCli(args(a))).code).toBe(0);
    expect((await runCli(args(b))).code).toBe(0);
    const rows = (dir: string) => readFileSync(join(dir, "variational.csv"), "utf8").split("\n").filter((l) => !l.startsWith("#"));
    expect(rows(b)).toEqual(rows(a));
    const c = join(tmp, "iter");
    const r = await runCli(args(c, ["--iter", "300", "--tol-rel-obj", "1e-9"]));
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/ppl: variational did not converge: the maximum number of iterations \(--iter 300\) was reached; the last relative ELBO change: mean \S+, median \S+, against --tol-rel-obj 1e-9/);
    const text = readFileSync(join(c, "variational.csv"), "utf8");
    expect(text).toMatch(/# ADVI did not converge/);
    expect(readCsv(join(c, "variational.csv")).draws[0]!.length).toBe(21);
  });

  it("a model without parameters is a model error (exit 3) and writes nothing", async () => {
    const p = modelFile("none", `model({ name: "none", data: {}, build() {} })`);
    const out = join(tmp, "none");
    const r = await runCli(["variational", p, "-o", out]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/declared no parameters/);
    expect(existsSync(join(out, "variational.csv"))).toBe(false);
  });
});
