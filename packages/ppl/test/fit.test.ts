// sample(model, data, options) and its Fit: named constrained draws that are the sampler's own
// draws, and the summary, diagnostics, LOO and CSV files made from them.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  compileModel, data, Fit, FitError, halfCauchy, model, modelDensity, normal, readStanCsv, sample, sampleAsync,
} from "../src/index.ts";

const eightSchools = model({
  name: "eight_schools_noncentered",
  data: { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) },
  build(m, d) {
    const mu = m.param("mu", normal(0, 5));
    const tau = m.param("tau", halfCauchy(0, 5));
    const thetaTrans = m.param("theta_trans", normal(0, 1), { shape: [d.J] });
    m.deterministic("theta", mu.add(tau.mul(thetaTrans)));
    m.observe(d.y, normal(m.deterministic("theta_obs", mu.add(tau.mul(thetaTrans))), d.sigma));
  },
});
const DATA = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const OPTS = { chains: 2, warmup: 150, draws: 60, seed: 5 };

describe("sample(model, data) → Fit", () => {
  let fit: Fit;
  beforeAll(async () => {
    fit = await sample(eightSchools, DATA, OPTS);
  });

  it("holds every chain's draws by name, and they are the sampler's draws of the same seed", async () => {
    expect(fit.chains).toBe(2);
    expect(fit.drawsPerChain).toBe(60);
    expect(fit.names.slice(0, 3)).toEqual(["mu", "tau", "theta_trans[1]"]);
    const density = await modelDensity(compileModel(eightSchools, DATA), { backend: "cpu" });
    const raw = await sampleAsync(density, OPTS);
    for (let c = 0; c < 2; c++) {
      // mu is unconstrained as it is; tau = exp(q[1]).
      expect(Array.from(fit.draws("mu")[c]!)).toEqual(Array.from({ length: 60 }, (_, d) => raw.draws[c]![d * raw.dim]!));
      expect(Array.from(fit.draws("tau")[c]!)).toEqual(Array.from({ length: 60 }, (_, d) => Math.exp(raw.draws[c]![d * raw.dim + 1]!)));
      expect(Array.from(fit.draws("lp__")[c]!)).toEqual(Array.from(raw.stats[c]!.lp));
    }
    const theta = fit.variable("theta");
    expect(theta.shape).toEqual([8]);
    expect(theta.chains[1]![5 * 8 + 2]).toBe(fit.draws("theta[3]")[1]![5]);
  });

  it("summarizes and diagnoses every variable", () => {
    const s = fit.summary();
    expect(s.parameters.map((p) => p.name)).toEqual(fit.names);
    expect(s.chains).toBe(2);
    expect(s.drawsPerChain).toBe(60);
    const mu = s.parameters[0]!;
    const draws = [...fit.draws("mu")[0]!, ...fit.draws("mu")[1]!];
    expect(mu.mean).toBeCloseTo(draws.reduce((a, b) => a + b, 0) / draws.length, 12);
    const d = fit.diagnostics();
    expect(d.draws).toBe(120);
    expect(d.ebfmi).toHaveLength(2);
  });

  it("computes PSIS-LOO over the eight observations", () => {
    const l = fit.loo();
    expect(l.pointwise.elpd_loo).toHaveLength(8);
    expect(Number.isFinite(l.elpd_loo)).toBe(true);
    expect(l.p_loo).toBeGreaterThan(0);
  });

  it("writes Stan CSV files that read back bit for bit", () => {
    const dir = mkdtempSync(join(tmpdir(), "fit-csv-"));
    const paths = fit.writeCsv(dir);
    expect(paths.map((p) => p.slice(dir.length + 1))).toEqual(["chain-1.csv", "chain-2.csv"]);
    const csv = readStanCsv(readFileSync(paths[1]!, "utf8"));
    expect(csv.columns).toContain("theta.3");
    expect(Array.from(csv.draws[csv.columns.indexOf("theta.3")]!)).toEqual(Array.from(fit.draws("theta[3]")[1]!));
    expect(csv.adaptation?.stepsize).toBe(fit.adaptation[1]!.stepSize);
  });

  it("names what it has when asked for what it lacks", () => {
    expect(() => fit.draws("sigma")).toThrow(FitError);
    expect(() => fit.draws("sigma")).toThrow(/no variable 'sigma'; its variables are mu, tau, theta_trans, theta/);
    expect(() => fit.draws("theta")).toThrow(/'theta' has 8 elements; ask for one \('theta\[1\]'\) or use fit.variable\('theta'\)/);
    expect(() => fit.variable("nope")).toThrow(FitError);
  });

  it("keeps the draws made before a stop", async () => {
    const controller = new AbortController();
    const stopped = await sample(eightSchools, DATA, {
      ...OPTS, onDraw: (d) => { if (d.iteration === OPTS.warmup + 9) controller.abort(); }, signal: controller.signal,
    });
    expect(stopped.aborted).toBe(true);
    expect(stopped.drawsPerChain).toBe(10);
    expect(Array.from(stopped.draws("mu")[0]!)).toEqual(Array.from(fit.draws("mu")[0]!.slice(0, 10)));
  });

  it("refuses data that do not fit, as compileModel does", async () => {
    await expect(sample(eightSchools, { ...DATA, J: 7 }, OPTS)).rejects.toThrow(/J/);
  });
});
