// `ppl sample --target-ess N`: sampling stops at the first block after which every shown
// parameter's bulk ESS is N or more and its nested R-hat below 1.01, or at --max-draws; the files
// end there as a finished run's do.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { sampleCommand } from "../src/commands/sample.ts";
import type { SampleCommandOptions } from "../src/commands/sample-options.ts";
import { summaryCommand } from "../src/commands/summary.ts";
import { tempDir } from "./helpers.ts";

const POSTERIOR = "../shared/posteriordb/eight_schools-eight_schools_noncentered";

interface Captured { code: number; stdout: string; stderr: string }

function capture(): { io: Parameters<typeof summaryCommand>[2]; out: Captured } {
  const out: Captured = { code: -1, stdout: "", stderr: "" };
  return { io: { stdout: { write: (s: string) => (out.stdout += s) }, stderr: { write: (s: string) => (out.stderr += s) } }, out };
}

// The command in this process (a child costs seconds of start-up): ChEES in 8 superchains.
async function sample(output: string, extra: Partial<SampleCommandOptions>): Promise<Captured> {
  const { io, out } = capture();
  const opts = {
    data: `${POSTERIOR}/data.json`, chains: 64, warmup: 150, draws: 1000, seed: 2, backend: "cpu", metric: "diag", adaptDelta: 0.8, maxDepth: 10, init: 2,
    output, quiet: true, strict: false, algorithm: "chees", superchains: 8, refresh: 0, ...extra,
  } as SampleCommandOptions;
  try {
    out.code = await sampleCommand(`${POSTERIOR}/model.stan`, opts, io);
  } catch (e) {
    out.code = (e as { exitCode?: number }).exitCode ?? -1;
    out.stderr += (e as Error).message;
  }
  return out;
}

function chainDraws(dir: string): number[] {
  return readdirSync(dir).filter((n) => /^chain-\d+\.csv$/.test(n)).map((n) => {
    const csv = readStanCsv(readFileSync(join(dir, n), "utf8"));
    expect(csv.timing, n).toBeDefined();
    expect(csv.truncated).toBe(false);
    return csv.draws[0]!.length;
  });
}

describe("ppl sample --target-ess", () => {
  it("stops once every parameter's bulk ESS reaches the target and nested R-hat is below 1.01, before the cap; the files end cleanly", async () => {
    const dir = tempDir();
    const r = await sample(dir, { targetEss: 400, maxDraws: 500 });
    expect(r.code, r.stderr).toBe(0);
    const m = /--target-ess 400: reached after (\d+) draws a chain/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const kept = Number(m![1]);
    expect(kept).toBeLessThan(500);
    // Every chain holds exactly the draws checked (ChEES runs its chains in lockstep), with its timing footer.
    expect(new Set(chainDraws(dir))).toEqual(new Set([kept]));
    expect(readFileSync(join(dir, "chain-1.csv"), "utf8")).toContain("target_ess = 400");
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as Record<string, { ess_bulk?: number; rhat_nested?: number }>;
    const params = Object.entries(summary).filter(([name]) => name !== "sampler__");
    expect(params.length).toBe(18);
    for (const [name, s] of params) {
      expect(s.ess_bulk!, name).toBeGreaterThanOrEqual(400);
      expect(s.rhat_nested!, name).toBeLessThan(1.01);
    }
    // ppl summary reads a finished run: no note that the files hold fewer draws than num_samples (the cap).
    const { io, out } = capture();
    expect(summaryCommand([dir], { json: false }, io)).toBe(0);
    expect(out.stderr).toBe("");
  }, 120_000);

  it("stops at --max-draws with a warning when the target is out of reach, and refuses --max-draws alone", async () => {
    const dir = tempDir();
    const r = await sample(dir, { chains: 16, superchains: 4, warmup: 50, targetEss: 1_000_000, maxDraws: 30 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: --target-ess 1000000: not reached within the cap of draws; after 30 draws a chain: lowest bulk ESS \d+/);
    expect(new Set(chainDraws(dir))).toEqual(new Set([30]));
    const bad = await sample(tempDir(), { maxDraws: 30 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-draws caps the draws of --target-ess");
  }, 120_000);
});
