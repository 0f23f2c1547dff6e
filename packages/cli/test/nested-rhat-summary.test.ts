// `ppl summary` and nested R-hat: rhat_nested per parameter in --json and the warning by its
// threshold in the text, over the superchains of the files' header or of --superchains.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { contiguousSuperchains, rhatNested } from "@ppl/ppl";
import { summaryCommand, type SummaryCommandOptions } from "../src/commands/summary.ts";
import { tempDir } from "./helpers.ts";

// The command in this process (a child per call costs seconds): its code, stdout and stderr.
function summary(dir: string, opts: Partial<SummaryCommandOptions> = {}): { code: number; stdout: string; stderr: string } {
  let stdout = "";
  let stderr = "";
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  try {
    return { code: summaryCommand([dir], { json: false, ...opts }, io), stdout, stderr };
  } catch (e) {
    return { code: (e as { exitCode?: number }).exitCode ?? -1, stdout, stderr: stderr + (e as Error).message };
  }
}

// Four chains of five draws in two superchains; the second superchain sits 5 higher (unmixed),
// or not at all (mixed).
function writeRun(shift: number, header: boolean): { dir: string; draws: Float64Array[] } {
  const dir = tempDir();
  const draws = [1, 2, 3, 4].map((c) => Float64Array.from({ length: 5 }, (_, i) => (c > 2 ? shift : 0) + (((i + 1) * c) % 4) + 0.1 * c));
  draws.forEach((d, c) => {
    const lines = ["# model = m", ...(header ? ["# superchains = 2"] : []), "lp__,x", ...Array.from(d, (x) => `0,${x}`), "#  Elapsed Time: 0 seconds (Warm-up)", "#                0 seconds (Sampling)", "#                0 seconds (Total)"];
    writeFileSync(join(dir, `chain-${c + 1}.csv`), lines.join("\n") + "\n");
  });
  return { dir, draws };
}

describe("ppl summary: nested R-hat", () => {
  it("adds rhat_nested to --json and warns in the text when the header's superchains have not mixed", () => {
    const { dir, draws } = writeRun(5, true);
    const expected = rhatNested(draws, contiguousSuperchains(4, 2));
    expect(expected).toBeGreaterThan(1.5);
    const json = summary(dir, { json: true });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).x.rhat_nested).toBeCloseTo(expected, 12);
    const text = summary(dir);
    expect(text.stdout).toContain("nested R-hat (2 superchains of 2 chains):");
    expect(text.stdout).toMatch(/warning: nested R-hat is 1\.01 or more \(or NA\) for x:/);
  });

  it("gives no warning below the threshold, takes --superchains for files without the header, and refuses a count that does not divide the chains", () => {
    const mixed = writeRun(0, true);
    const r = summary(mixed.dir);
    expect(rhatNested(mixed.draws, contiguousSuperchains(4, 2))).toBeLessThan(1.01);
    expect(r.stdout).toContain("nested R-hat (2 superchains of 2 chains):");
    expect(r.stdout).not.toContain("warning: nested R-hat");
    const bare = writeRun(5, false);
    const none = JSON.parse(summary(bare.dir, { json: true }).stdout);
    expect(none.x.rhat_nested).toBeUndefined();
    const given = JSON.parse(summary(bare.dir, { json: true, superchains: 2 }).stdout);
    expect(given.x.rhat_nested).toBeCloseTo(rhatNested(bare.draws, contiguousSuperchains(4, 2)), 12);
    const bad = summary(bare.dir, { superchains: 3 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--superchains 3 does not divide the run's 4 chains");
  });
});
