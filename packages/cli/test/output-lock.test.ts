// One writer per output directory: a second `ppl sample` into a directory in use is refused; a run
// killed with SIGKILL leaves CSV files valid up to their last complete row and a stale lock, which
// the next run takes over.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { hasStackTrace, runCli, startCli, tempDir } from "./helpers.ts";

const EIGHT = ["examples/eight_schools.ts", "--data", "examples/eight_schools.json"];

// Complete rows (lines after the column line) in a CSV file so far.
function rowsOnDisk(path: string): number {
  if (!existsSync(path)) return 0;
  const lines = readFileSync(path, "utf8").split("\n");
  const header = lines.findIndex((l) => l.startsWith("lp__,"));
  return header < 0 ? 0 : lines.slice(header + 1, -1).filter((l) => l !== "" && !l.startsWith("#")).length;
}

describe("the output directory's lock", () => {
  it("refuses a second run into a directory in use; after SIGKILL the files parse and the stale lock is taken over", async () => {
    const out = join(tempDir(), "run");
    const { child, done } = startCli(["sample", ...EIGHT, "--chains", "2", "--warmup", "50", "--draws", "1000000", "--seed", "1", "--output", out, "--quiet"]);
    const first = join(out, "chain-1.csv");
    const deadline = Date.now() + 60_000;
    while (rowsOnDisk(first) < 20) {
      if (Date.now() > deadline) throw new Error("no draws on disk after 60 s");
      if (child.exitCode !== null) throw new Error(`ppl exited early: ${(await done).stderr}`);
      await sleep(50);
    }
    expect(readFileSync(join(out, ".ppl.lock"), "utf8").trim()).toBe(String(child.pid));

    const second = await runCli(["sample", ...EIGHT, "--chains", "2", "--warmup", "10", "--draws", "10", "--seed", "2", "--output", out, "--quiet"]);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toMatch(new RegExp(`the output directory '.*run' is in use by another ppl run \\(pid ${child.pid}, lock file .*\\.ppl\\.lock\\); wait for it to end, or choose another --output`));
    expect(hasStackTrace(second.stderr)).toBe(false);

    child.kill("SIGKILL");
    await done;
    // Every row written is whole: the files parse, each row has every column.
    for (const c of [1, 2]) {
      const csv = readStanCsv(readFileSync(join(out, `chain-${c}.csv`), "utf8"));
      expect(csv.draws[0]!.length).toBeGreaterThan(0);
      for (const col of csv.draws) expect(col.length).toBe(csv.draws[0]!.length);
    }
    expect(existsSync(join(out, ".ppl.lock"))).toBe(true);

    const third = await runCli(["sample", ...EIGHT, "--chains", "2", "--warmup", "20", "--draws", "20", "--seed", "2", "--output", out]);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toMatch(new RegExp(`took over the stale lock .*\\.ppl\\.lock of a run that is no longer running \\(pid ${child.pid}\\)`));
    expect(existsSync(join(out, ".ppl.lock"))).toBe(false);
  });
});

describe("ppl sample --prior and ppl generate take the lock too", () => {
  it("refuse a directory whose lock a live process holds, naming it", async () => {
    const root = tempDir();
    const fit = join(root, "fit");
    const made = await runCli(["sample", ...EIGHT, "--chains", "2", "--warmup", "20", "--draws", "20", "--seed", "3", "--output", fit, "--quiet"]);
    expect(made.code, made.stderr).toBe(0);
    // This test's own process is alive: its pid in the lock stands for a run still writing there.
    const busy = join(root, "busy");
    mkdirSync(busy);
    writeFileSync(join(busy, ".ppl.lock"), `${process.pid}\n`);
    const inUse = new RegExp(`the output directory '.*busy' is in use by another ppl run \\(pid ${process.pid}, lock file .*\\.ppl\\.lock\\)`);
    const prior = await runCli(["sample", ...EIGHT, "--prior", "--chains", "2", "--draws", "10", "--output", busy, "--quiet"]);
    expect(prior.code, prior.stderr).toBe(2);
    expect(prior.stderr).toMatch(inUse);
    const generated = await runCli(["generate", ...EIGHT, "--fit", fit, "--output", busy, "--quiet"]);
    expect(generated.code, generated.stderr).toBe(2);
    expect(generated.stderr).toMatch(inUse);
    expect(existsSync(join(busy, "chain-1.csv"))).toBe(false);
    expect(readFileSync(join(busy, ".ppl.lock"), "utf8")).toBe(`${process.pid}\n`);
  }, 120_000);
});
