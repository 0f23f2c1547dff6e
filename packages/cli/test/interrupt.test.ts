// Ctrl-C during `ppl sample`: what was drawn is on disk and every CSV file is valid.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { readStanCsv, SAMPLER_COLUMNS } from "@ppl/ppl";
import { hasStackTrace, runCli, startCli, tempDir } from "./helpers.ts";

const CHAINS = 3;

/** Number of complete draw rows (non-comment lines after the column line) in a CSV file so far. */
function rowsOnDisk(path: string): number {
  if (!existsSync(path)) return 0;
  const lines = readFileSync(path, "utf8").split("\n");
  const header = lines.findIndex((l) => l.startsWith("lp__,"));
  return header < 0 ? 0 : lines.slice(header + 1, -1).filter((l) => l !== "" && !l.startsWith("#")).length;
}

describe("interrupting ppl sample", () => {
  it("SIGINT once draws are on disk: exit 130, valid CSVs holding every completed draw, summary still works", async () => {
    const out = join(tempDir(), "run");
    const { child, done } = startCli([
      "sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json",
      "--chains", String(CHAINS), "--warmup", "50", "--draws", "100000", "--seed", "3", "--output", out,
    ]);
    const first = join(out, "chain-1.csv");
    const deadline = Date.now() + 60_000;
    while (rowsOnDisk(first) < 20) {
      if (Date.now() > deadline) throw new Error("no draws on disk after 60 s");
      if (child.exitCode !== null) throw new Error(`ppl exited early: ${(await done).stderr}`);
      await sleep(50);
    }
    child.kill("SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/interrupted by SIGINT: \d+ of 100000 draws per chain \(after 50 of 50 warmup iterations\) are in 3 valid CSV files in .*, summarized in summary.json/);
    expect(hasStackTrace(r.stderr)).toBe(false);

    const files = Array.from({ length: CHAINS }, (_, c) => readStanCsv(readFileSync(join(out, `chain-${c + 1}.csv`), "utf8")));
    const counts = files.map((f) => f.draws[0]!.length);
    for (const [c, f] of files.entries()) {
      expect(f.truncated, `chain ${c + 1}`).toBe(false);
      expect(f.columns.slice(0, 7)).toEqual([...SAMPLER_COLUMNS]);
      for (const col of f.draws) for (const v of col) expect(Number.isFinite(v)).toBe(true);
      // Closed cleanly: the adaptation block and the timing footer are there.
      expect(f.adaptation?.stepsize).toBeGreaterThan(0);
      expect(f.timing?.total).toBeGreaterThan(0);
    }
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    expect(r.stderr).toContain(`interrupted by SIGINT: ${Math.min(...counts)} of`);

    const s = await runCli(["summary", out, "--json"]);
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).sampler__.draws_per_chain).toBe(Math.min(...counts));
  });
});
