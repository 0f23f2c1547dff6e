// `ppl optimize` and `ppl laplace` as a user runs them: CmdStan's optimize.csv and laplace.csv,
// the mode with and without the Jacobian on a closed-form case, the exit codes of a run that did
// not converge, of a model without parameters and of a singular Hessian, and Laplace draws whose
// moments match the exact normal posterior within Monte Carlo error.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCsv, runCli, tempDir } from "./helpers.ts";
import { normalPosterior, POST_MEAN, POST_SD, writeModelFile } from "./normal-posterior.ts";

const tmp = tempDir("ppl-optimize-");
const modelFile = (name: string, body: string): string => writeModelFile(tmp, name, body);

// σ ~ gamma(3.5, 2): the constrained density's mode is (α − 1)/β = 1.25, with the Jacobian of σ = eᵘ α/β = 1.75.
const GAMMA = modelFile("gamma", `model({ name: "g", data: {}, build(m) { m.param("sigma", gamma(3.5, 2)); } })`);
const { model: NORMAL, data: NORMAL_DATA } = normalPosterior(tmp);

describe("ppl optimize", () => {
  it("writes optimize.csv in CmdStan's layout and finds (α−1)/β without the Jacobian, α/β with it", async () => {
    const out = join(tmp, "g1");
    const r = await runCli(["optimize", GAMMA, "--output", out, "--seed", "3"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Convergence detected/);
    expect(r.stdout).toMatch(/^variable\s+estimate\nlp__\s+\S+\nsigma\s+1\.2(5|49)/);
    const csv = readCsv(join(out, "optimize.csv"));
    expect(csv.columns).toEqual(["lp__", "sigma"]);
    expect(csv.config["method"]).toBe("optimize");
    expect(csv.config["algorithm"]).toBe("lbfgs");
    expect(csv.config["jacobian"]).toBe("0");
    // CmdStan's default tolerances (tol-obj 1e-12, tol-rel-grad 1e7·ε) stop within about 1e-5 of the mode.
    expect(Math.abs(csv.draws[1]![0]! - 1.25)).toBeLessThan(1e-4);
    const out2 = join(tmp, "g2");
    const j = await runCli(["optimize", GAMMA, "--output", out2, "--seed", "3", "--jacobian", "--algorithm", "bfgs"]);
    expect(j.code, j.stderr).toBe(0);
    const csv2 = readCsv(join(out2, "optimize.csv"));
    expect(csv2.config["jacobian"]).toBe("1");
    expect(Math.abs(csv2.draws[1]![0]! - 1.75)).toBeLessThan(1e-4);
  });

  it("writes deterministics after the parameters; Newton finds a normal posterior's mean", async () => {
    const out = join(tmp, "n1");
    const r = await runCli(["optimize", NORMAL, "--data", NORMAL_DATA, "--output", out, "--algorithm", "newton"]);
    expect(r.code, r.stderr).toBe(0);
    const csv = readCsv(join(out, "optimize.csv"));
    expect(csv.columns).toEqual(["lp__", "mu", "twice"]);
    expect(Math.abs(csv.draws[1]![0]! - POST_MEAN)).toBeLessThan(1e-6);
    expect(csv.draws[2]![0]!).toBeCloseTo(2 * csv.draws[1]![0]!, 12);
  });

  it("a run that hits --iter exits 5 naming the limit, and its CSV holds the last iterate marked as not converged", async () => {
    const out = join(tmp, "g3");
    const r = await runCli(["optimize", GAMMA, "--output", out, "--iter", "1", "--init", "0"]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/ppl: optimize did not converge: Maximum number of iterations hit \(--iter 1\)/);
    const csv = readCsv(join(out, "optimize.csv"));
    expect(csv.draws[0]!.length).toBe(1);
  });

  it("a model without parameters is a model error (exit 3) and writes nothing", async () => {
    const p = modelFile("none", `model({ name: "none", data: {}, build() {} })`);
    const out = join(tmp, "none");
    const r = await runCli(["optimize", p, "--output", out]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/declared no parameters/);
    expect(existsSync(join(out, "optimize.csv"))).toBe(false);
  });
});

describe("ppl laplace", () => {
  it("draws a normal posterior: log_p__ and log_g__ first, mean and sd within Monte Carlo error", async () => {
    const out = join(tmp, "l1");
    const draws = 4000;
    const r = await runCli(["laplace", NORMAL, "--data", NORMAL_DATA, "--output", out, "--draws", String(draws), "--seed", "11"]);
    expect(r.code, r.stderr).toBe(0);
    const csv = readCsv(join(out, "laplace.csv"));
    expect(csv.columns).toEqual(["log_p__", "log_g__", "mu", "twice"]);
    // CmdStan's timing footer: the file reads back as a finished run.
    expect(csv.timing).toBeDefined();
    expect(csv.config["method"]).toBe("laplace");
    const mu = csv.draws[2]!;
    expect(mu.length).toBe(draws);
    const mean = mu.reduce((a, b) => a + b, 0) / draws;
    const sd = Math.sqrt(mu.reduce((a, b) => a + (b - mean) ** 2, 0) / (draws - 1));
    const trueSd = POST_SD;
    expect(Math.abs(mean - POST_MEAN) / (trueSd / Math.sqrt(draws))).toBeLessThan(4);
    expect(Math.abs(sd - trueSd) / (trueSd / Math.sqrt(2 * draws))).toBeLessThan(4);
    // For an exactly normal posterior, log_p − log_g is the same constant for every draw.
    const diff = csv.draws[0]!.map((lp, i) => lp - csv.draws[1]![i]!);
    expect(Math.max(...diff) - Math.min(...diff)).toBeLessThan(1e-6);
  });

  it("takes the mode from optimize.csv (--mode) and draws around it", async () => {
    const opt = join(tmp, "l2-opt");
    expect((await runCli(["optimize", NORMAL, "--data", NORMAL_DATA, "--output", opt])).code).toBe(0);
    const out = join(tmp, "l2");
    const r = await runCli(["laplace", NORMAL, "--data", NORMAL_DATA, "--mode", join(opt, "optimize.csv"), "--output", out, "--draws", "10", "--seed", "1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(readCsv(join(out, "laplace.csv")).config["mode"]).toBe(join(opt, "optimize.csv"));
  });

  it("a singular Hessian (a direction the density does not see) exits 5 with a message and writes no laplace.csv", async () => {
    const p = modelFile("flat", `model({ name: "flat", data: { y: data.vector(3) }, build(m, d) {
      const a = m.param("a");
      const b = m.param("b");
      m.observe(d.y, normal(a.add(b), 1));
    } })`);
    const dataFile = join(tmp, "flat.json");
    writeFileSync(dataFile, JSON.stringify({ y: [1, 2, 3] }));
    const out = join(tmp, "flat-out");
    const r = await runCli(["laplace", p, "--data", dataFile, "--output", out, "--seed", "2"]);
    expect(r.code).toBe(5);
    // The error is a line of its own; --backend auto may say first where it placed the run.
    expect(r.stderr).toMatch(/^ppl: laplace: the Hessian of the log density at the mode is (indefinite or singular|near singular)/m);
    expect(existsSync(join(out, "laplace.csv"))).toBe(false);
  });
});
