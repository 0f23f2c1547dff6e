// `ppl sample` on the CPU with the matrix and sum-to-zero constraints (fixtures/constraints): every
// draw satisfies its constraint exactly, and the posterior moments match their closed forms within
// Monte Carlo error (inverse Wishart for the covariance, LKJ's Beta marginal for the correlation,
// Dirichlet for the stochastic rows, the hyperplane-restricted normal for the sum-to-zero vector).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { collectChains, summarize, type StanCsv } from "@ppl/ppl";
import { isSymmetricPositiveDefinite } from "@ppl/ppl/internals";
import { readCsv, ROOT, runCli, tempDir, type CliResult } from "./helpers.ts";

const CHAINS = 4;
const DRAWS = 500;
const FIXTURES = "packages/cli/test/fixtures/constraints";
const COV = JSON.parse(readFileSync(join(ROOT, FIXTURES, "covariance.json"), "utf8")) as { N: number; K: number; y: number[][] };
const STZ = JSON.parse(readFileSync(join(ROOT, FIXTURES, "sum_to_zero.json"), "utf8")) as { K: number; y: number[]; s: number; sigma: number };

/** Samples a fixture model on the CPU and reads its chains back. */
async function sampleFixture(name: string): Promise<{ run: CliResult; files: StanCsv[] }> {
  const out = join(tempDir(), name);
  const run = await runCli([
    "sample", `${FIXTURES}/${name}.ts`, "--data", `${FIXTURES}/${name}.json`, "--backend", "cpu",
    "--chains", String(CHAINS), "--warmup", "300", "--draws", String(DRAWS), "--seed", "3", "--quiet", "--output", out,
  ]);
  const files = run.code === 0 ? Array.from({ length: CHAINS }, (_, c) => readCsv(join(out, `chain-${c + 1}.csv`))) : [];
  return { run, files };
}

/** Every draw of a K×K matrix parameter (columns name.i.j), row-major. */
function matrixDraws(files: StanCsv[], name: string, k: number): Float64Array[] {
  const cols = files[0]!.columns;
  const at = Array.from({ length: k * k }, (_, f) => cols.indexOf(`${name}.${Math.floor(f / k) + 1}.${(f % k) + 1}`));
  expect(at.every((i) => i >= 0)).toBe(true);
  return files.flatMap((f) => Array.from({ length: f.draws[at[0]!]!.length }, (_, d) => Float64Array.from(at, (i) => f.draws[i]![d]!)));
}

/** The summary's entry for a parameter (collectChains names them with brackets). */
function entry(summary: ReturnType<typeof summarize>, name: string) {
  const p = summary.parameters.find((q) => q.name === name);
  if (!p) throw new Error(`${name} is not in the summary`);
  return p;
}

describe("covariance, correlation and row-stochastic constraints", () => {
  let files: StanCsv[];
  let run: CliResult;
  beforeAll(async () => ({ run, files } = await sampleFixture("covariance")));

  it("gives symmetric positive-definite Sigma, Omega with unit diagonal, and rows of P that are simplexes", () => {
    expect(run.code, run.stderr).toBe(0);
    const sigma = matrixDraws(files, "Sigma", 3);
    const omega = matrixDraws(files, "Omega", 3);
    expect(sigma.length).toBe(CHAINS * DRAWS);
    expect(sigma.every((x) => isSymmetricPositiveDefinite(x, 3))).toBe(true);
    expect(omega.every((x) => isSymmetricPositiveDefinite(x, 3) && [0, 4, 8].every((d) => x[d] === 1))).toBe(true);
    expect(omega.every((x) => x.every((v) => Math.abs(v) <= 1))).toBe(true);
    const cols = files[0]!.columns;
    for (const f of files) {
      for (let r = 1; r <= 2; r++) {
        const row = [1, 2, 3].map((c) => f.draws[cols.indexOf(`P.${r}.${c}`)]!);
        for (let d = 0; d < DRAWS; d++) {
          expect(row.every((v) => v[d]! >= 0)).toBe(true);
          expect(Math.abs(row[0]![d]! + row[1]![d]! + row[2]![d]! - 1)).toBeLessThan(1e-14);
        }
      }
    }
  });

  it("matches inverse Wishart(6 + N, I + YᵀY) for Sigma, Beta(2.5, 2.5) on (−1, 1) for Omega and Dirichlet(1) for P", () => {
    const summary = summarize(collectChains(files).parameters);
    const k = COV.K;
    const nu = 6 + COV.N;
    const scale = Array.from({ length: k * k }, (_, f) => {
      const [i, j] = [Math.floor(f / k), f % k];
      return (i === j ? 1 : 0) + COV.y.reduce((s, row) => s + row[i]! * row[j]!, 0);
    });
    for (let i = 0; i < k; i++) {
      for (let j = 0; j <= i; j++) {
        const p = entry(summary, `Sigma[${i + 1},${j + 1}]`);
        const mean = scale[i * k + j]! / (nu - k - 1);
        const variance = ((nu - k + 1) * scale[i * k + j]! ** 2 + (nu - k - 1) * scale[i * k + i]! * scale[j * k + j]!) /
          ((nu - k) * (nu - k - 1) ** 2 * (nu - k - 3));
        expect(Math.abs(p.mean - mean), `Sigma[${i + 1},${j + 1}] mean`).toBeLessThan(5 * p.mcse_mean);
        expect(Math.abs(p.sd - Math.sqrt(variance)), `Sigma[${i + 1},${j + 1}] sd`).toBeLessThan(5 * p.mcse_sd);
      }
    }
    // LKJ(eta) on K×K: (Ω_ij + 1)/2 ~ Beta(eta − 1 + K/2, same), so mean 0 and variance 1/(2eta + K − 1).
    for (const name of ["Omega[2,1]", "Omega[3,1]", "Omega[3,2]"]) {
      const p = entry(summary, name);
      expect(Math.abs(p.mean)).toBeLessThan(5 * p.mcse_mean);
      expect(Math.abs(p.sd - Math.sqrt(1 / 6))).toBeLessThan(5 * p.mcse_sd);
    }
    // Dirichlet(1, 1, 1): each entry Beta(1, 2), mean 1/3 and sd √2/6.
    for (let r = 1; r <= 2; r++) {
      for (let c = 1; c <= 3; c++) {
        const p = entry(summary, `P[${r},${c}]`);
        expect(Math.abs(p.mean - 1 / 3)).toBeLessThan(5 * p.mcse_mean);
        expect(Math.abs(p.sd - Math.SQRT2 / 6)).toBeLessThan(5 * p.mcse_sd);
      }
    }
  });
});

describe("sum-to-zero constraint", () => {
  let files: StanCsv[];
  let run: CliResult;
  beforeAll(async () => ({ run, files } = await sampleFixture("sum_to_zero")));

  it("gives draws that sum to zero, and the hyperplane-restricted normal's mean and sd", () => {
    expect(run.code, run.stderr).toBe(0);
    const cols = files[0]!.columns;
    const at = Array.from({ length: STZ.K }, (_, j) => cols.indexOf(`alpha.${j + 1}`));
    for (const f of files) {
      for (let d = 0; d < DRAWS; d++) {
        const x = at.map((i) => f.draws[i]![d]!);
        expect(Math.abs(x.reduce((a, b) => a + b, 0))).toBeLessThan(1e-13 * (1 + Math.max(...x.map(Math.abs))));
      }
    }
    const summary = summarize(collectChains(files).parameters);
    const ybar = STZ.y.reduce((a, b) => a + b, 0) / STZ.K;
    const shrink = STZ.sigma ** 2 / (STZ.sigma ** 2 + STZ.s ** 2);
    const sd = Math.sqrt((1 - 1 / STZ.K) / (1 / STZ.sigma ** 2 + 1 / STZ.s ** 2));
    STZ.y.forEach((y, j) => {
      const p = entry(summary, `alpha[${j + 1}]`);
      expect(Math.abs(p.mean - (y - ybar) * shrink)).toBeLessThan(5 * p.mcse_mean);
      expect(Math.abs(p.sd - sd)).toBeLessThan(5 * p.mcse_sd);
    });
  });
});
