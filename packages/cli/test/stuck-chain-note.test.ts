// A chain of `ppl sample` started where its gradient is noise (fixtures/stuck/noisy-far.ts, chain 1
// at x = 8) is found stuck at the first warmup window's end and re-initialised: the note on stderr
// and as a comment in its CSV file, and the run ends with no chain left stuck.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { runCli, tempDir } from "./helpers.ts";

const FIXTURE = "packages/cli/test/fixtures/stuck";

describe("a stuck chain through ppl sample", () => {
  it("is re-initialised with a note on stderr and in its file, and no chain is left stuck", async () => {
    const out = join(tempDir(), "run");
    const r = await runCli([
      "sample", join(FIXTURE, "noisy-far.ts"), "--init", join(FIXTURE, "inits.json"), "--chains", "4", "--warmup", "300", "--draws", "100", "--seed", "11", "--output", out, "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const note = /^chain 1: its step size collapsed to \d\.\de-\d+ \(the other chains' median [\d.]+\), \d+% of its trees at the maximum depth by warmup iteration 100; re-initialised from a fresh random point, its adaptation restarted for the remaining warmup$/m;
    expect(r.stderr).toMatch(note);
    expect(r.stderr).not.toMatch(/looks stuck/);
    const text = readFileSync(join(out, "chain-1.csv"), "utf8");
    expect(text).toMatch(/^# chain 1: its step size collapsed .* by warmup iteration 100; re-initialised/m);
    for (const c of [2, 3, 4]) expect(readFileSync(join(out, `chain-${c}.csv`), "utf8")).not.toMatch(/re-initialised/);
    const csv = readStanCsv(text);
    const x = csv.draws[csv.columns.indexOf("x")]!;
    expect(x.length).toBe(100);
    expect(Math.max(...x)).toBeLessThan(6);
  }, 120_000);
});
