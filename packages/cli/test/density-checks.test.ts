// `ppl log-prob` and `ppl diagnose` as a user runs them: the log density and gradient at given
// constrained values against closed forms, with and without the Jacobian; the gradient test's
// table and its exit codes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PPL_INDEX, readCsv, runCli, tempDir } from "./helpers.ts";

const tmp = tempDir("ppl-density-");
const file = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const header = `import { data, gamma, model, normal } from ${JSON.stringify(PPL_INDEX)};\n`;
// μ ~ normal(0, 10), y ~ normal(μ, 2): d lp / dμ = −μ/100 + Σ(y − μ)/4.
const NORMAL = file("normal.ts", `${header}export default model({ name: "n", data: { N: data.int(), y: data.vector("N") }, build(m, d) {
  const mu = m.param("mu", normal(0, 10));
  m.observe(d.y, normal(mu, 2));
} });\n`);
const Y = [1.2, 0.4, 2.9, 1.7];
const DATA = file("normal.json", JSON.stringify({ N: Y.length, y: Y }));
const GAMMA = file("gamma.ts", `${header}export default model({ name: "g", data: {}, build(m) { m.param("sigma", gamma(3.5, 2)); } });\n`);
const dlp = (mu: number) => -mu / 100 + Y.reduce((a, y) => a + (y - mu) / 4, 0);
const lpDiff = (a: number, b: number) => -(a * a - b * b) / 200 - Y.reduce((s, y) => s + ((y - a) ** 2 - (y - b) ** 2) / 8, 0);

describe("ppl log-prob", () => {
  it("gives the log density and gradient at each row of a CSV file and at a JSON point", async () => {
    const csv = file("points.csv", "# two points\nlp__,mu\n0,1.5\n0,-0.25\n");
    const out = join(tmp, "lp1");
    const r = await runCli(["log-prob", NORMAL, "--data", DATA, "--params", csv, "--output", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const res = readCsv(join(out, "log_prob.csv"));
    expect(res.columns).toEqual(["lp__", "g_1"]);
    expect(res.config["method"]).toBe("log_prob");
    expect(res.draws[1]![0]!).toBeCloseTo(dlp(1.5), 10);
    expect(res.draws[1]![1]!).toBeCloseTo(dlp(-0.25), 10);
    expect(res.draws[0]![0]! - res.draws[0]![1]!).toBeCloseTo(lpDiff(1.5, -0.25), 10);
    expect(r.stdout.split("\n")[0]).toBe("lp__,g_1");
    const json = file("point.json", JSON.stringify({ mu: 1.5 }));
    const j = await runCli(["log-prob", NORMAL, "--data", DATA, "--params", json, "--output", join(tmp, "lp2"), "--quiet"]);
    expect(j.code, j.stderr).toBe(0);
    expect(readCsv(join(tmp, "lp2", "log_prob.csv")).draws[0]![0]).toBeCloseTo(res.draws[0]![0]!, 12);
  });

  it("with the Jacobian of σ = eᵘ (the default) the log density is log σ higher and its gradient 1 higher than --no-jacobian", async () => {
    const p = file("sigma.json", JSON.stringify({ sigma: 2.5 }));
    const a = await runCli(["log-prob", GAMMA, "--params", p, "--output", join(tmp, "j1"), "--quiet"]);
    const b = await runCli(["log-prob", GAMMA, "--params", p, "--output", join(tmp, "j0"), "--quiet", "--no-jacobian"]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const withJ = readCsv(join(tmp, "j1", "log_prob.csv"));
    const without = readCsv(join(tmp, "j0", "log_prob.csv"));
    expect(withJ.draws[0]![0]! - without.draws[0]![0]!).toBeCloseTo(Math.log(2.5), 12);
    expect(withJ.draws[1]![0]! - without.draws[1]![0]!).toBeCloseTo(1, 10);
    // d/du of log gamma(eᵘ; 3.5, 2) without the Jacobian: (α − 1) − β σ.
    expect(without.draws[1]![0]!).toBeCloseTo(2.5 - 2 * 2.5, 10);
  });

  it("a params file without a parameter is a usage error (exit 2)", async () => {
    const p = file("empty.json", "{}");
    const r = await runCli(["log-prob", NORMAL, "--data", DATA, "--params", p, "--output", join(tmp, "lp3")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ppl: params file '.*empty\.json' has no value for mu; give every parameter of model 'n'/);
  });
});

describe("ppl diagnose", () => {
  it("prints CmdStan's gradient table and exits 0 when every error is within --error", async () => {
    const r = await runCli(["diagnose", NORMAL, "--data", DATA, "--seed", "5"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("TEST GRADIENT MODE");
    expect(lines[2]).toMatch(/^ Log probability=-?\d/);
    expect(lines[4]).toMatch(/param idx\s+value\s+model\s+finite diff\s+error$/);
    const [, value, model, fd, err] = lines[5]!.trim().split(/\s+/).map(Number);
    // Printed to six significant digits, as CmdStan prints them.
    expect(Math.abs(model! - dlp(value!))).toBeLessThan(1e-4 * Math.max(1, Math.abs(model!)));
    expect(Math.abs(model! - fd!)).toBeLessThan(1e-6);
    expect(Math.abs(err!)).toBeLessThan(1e-6);
  });

  it("exits 1 naming the count when a coordinate's error exceeds --error", async () => {
    const r = await runCli(["diagnose", NORMAL, "--data", DATA, "--seed", "5", "--error", "1e-300", "--epsilon", "1e-3"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ppl: diagnose: 1 of 1 gradient coordinates differ from the finite differences by more than --error 1e-300/);
  });
});
