// Data files with keys the model does not declare, through the command: accepted as Stan accepts
// them, with one note on stderr naming the keys; the draws are those of the same data without them.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCsv, ROOT, runCli, tempDir } from "./helpers.ts";

const EIGHT = JSON.parse(readFileSync(join(ROOT, "examples/eight_schools.json"), "utf8")) as Record<string, unknown>;
const RUN = ["examples/eight_schools.ts", "--chains", "1", "--warmup", "30", "--draws", "20", "--seed", "4", "--backend", "cpu"];

describe("ppl sample with extra data keys", () => {
  it("accepts them with one note naming them, and samples as without them", async () => {
    const dir = tempDir("ppl-keys-");
    const extra = join(dir, "extra.json");
    writeFileSync(extra, JSON.stringify({ ...EIGHT, tau_true: 3, school_names: ["A", "B"] }));
    const [withKeys, plain] = await Promise.all([
      runCli(["sample", ...RUN, "--data", extra, "--output", join(dir, "a")]),
      runCli(["sample", ...RUN, "--data", "examples/eight_schools.json", "--quiet", "--output", join(dir, "b")]),
    ]);
    expect(withKeys.code, withKeys.stderr).toBe(0);
    expect(plain.code, plain.stderr).toBe(0);
    const notes = withKeys.stderr.split("\n").filter((l) => l.startsWith("note: data file"));
    expect(notes).toEqual([`note: data file '${extra}': keys 'tau_true', 'school_names' are not data fields of model 'eight_schools_noncentered' and are ignored`]);
    expect(readCsv(join(dir, "a", "chain-1.csv")).draws).toEqual(readCsv(join(dir, "b", "chain-1.csv")).draws);
  });

  it("notes even with --quiet, and says 'key … is' for one", async () => {
    const dir = tempDir("ppl-keys-");
    const extra = join(dir, "one.json");
    writeFileSync(extra, JSON.stringify({ ...EIGHT, N: 8 }));
    const r = await runCli(["sample", ...RUN, "--data", extra, "--quiet", "--output", join(dir, "a")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`note: data file '${extra}': key 'N' is not a data field of model 'eight_schools_noncentered' and is ignored\n`);
  });
});
