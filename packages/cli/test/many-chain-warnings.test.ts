// `ppl summary` of many short chains: the ESS warning asks for 400 in all (posterior's
// recommendation, 100 per chain for 4 chains), not 100 per chain (12,800 for 128 chains of 20
// draws), and E-BFMI below its threshold is one warning counting the chains beyond 16, not one
// line per chain.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { essBulk, LISTED_CHAINS } from "@ppl/ppl";
import { summaryCommand } from "../src/commands/summary.ts";
import { runCli, tempDir } from "./helpers.ts";

const CHAINS = 128;
const DRAWS = 20;
// Chains whose energy barely moves (E-BFMI far below 0.3); chain 7's the lowest.
const LOW_EBFMI = 37;

// x: independent normals (bulk ESS near 2,560); y: the same ramp in every chain (ESS below 400);
// energy: alternating with noise, or a slow ramp in the first LOW_EBFMI chains.
function writeRun(chains: number): { dir: string; x: Float64Array[]; y: Float64Array[] } {
  let state = 12345;
  const uniform = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  const normal = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const dir = tempDir();
  const x: Float64Array[] = [];
  const y: Float64Array[] = [];
  for (let c = 0; c < chains; c++) {
    const xs = Float64Array.from({ length: DRAWS }, normal);
    const ys = Float64Array.from({ length: DRAWS }, (_, i) => i + 0.01 * normal());
    const energy = Array.from({ length: DRAWS }, (_, i) => (c < LOW_EBFMI ? i * (c === 6 ? 0.001 : 0.01) : (i % 2) * 3 + normal()));
    x.push(xs);
    y.push(ys);
    const rows = Array.from({ length: DRAWS }, (_, i) => `0,0.9,0.5,2,3,0,${energy[i]},${xs[i]},${ys[i]}`);
    const lines = ["# model = m", "lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,x,y", ...rows, "#  Elapsed Time: 0 seconds (Warm-up)", "#                0 seconds (Sampling)", "#                0 seconds (Total)"];
    writeFileSync(join(dir, `chain-${c + 1}.csv`), lines.join("\n") + "\n");
  }
  return { dir, x, y };
}

// The command in this process: its code and stdout.
function summary(dir: string): { code: number; stdout: string } {
  let stdout = "";
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => undefined } };
  return { code: summaryCommand([dir], { json: false }, io), stdout };
}

describe("ppl summary of many chains", () => {
  it("asks 400 bulk and tail ESS in all and counts the chains of low E-BFMI in one warning", async () => {
    const { dir, x, y } = writeRun(CHAINS);
    expect(essBulk(x)).toBeGreaterThan(400);
    expect(essBulk(x)).toBeLessThan(100 * CHAINS);
    expect(essBulk(y)).toBeLessThan(400);
    const r = await runCli(["summary", dir]);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stdout.split("\n").filter((l) => l.startsWith("  - "));
    // No ESS warning for x; y's says the rule.
    expect(warnings.filter((w) => / of x /.test(w))).toEqual([]);
    expect(warnings).toContainEqual(expect.stringMatching(/^ {2}- Bulk-ESS of y is [\d.]+ \(< 400: 100 per chain, at most 400 in all\)/));
    const ebfmi = warnings.filter((w) => w.includes("E-BFMI"));
    expect(ebfmi).toEqual([expect.stringMatching(new RegExp(`^ {2}- E-BFMI is below 0\\.3 in ${LOW_EBFMI} of ${CHAINS} chains \\(lowest 0\\.\\d+, chain 7\\): `))]);
  }, 60_000);

  it("keeps 100 per chain up to 4 chains and one E-BFMI warning a chain up to 16", () => {
    const few = writeRun(LISTED_CHAINS);
    const text = summary(few.dir).stdout;
    const warnings = text.split("\n").filter((l) => l.startsWith("  - "));
    expect(warnings.filter((w) => w.includes("E-BFMI"))).toHaveLength(LISTED_CHAINS);
    expect(warnings.filter((w) => w.includes("E-BFMI of chain 7 is"))).toHaveLength(1);
    const two = writeRun(2);
    expect(summary(two.dir).stdout).toMatch(/Bulk-ESS of y is [\d.]+ \(< 200: 100 per chain, at most 400 in all\)/);
  });
});
