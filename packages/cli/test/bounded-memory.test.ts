// What `ppl sample` keeps in memory does not grow with the run: the draws go to the CSV files and a
// columnar spill, and the summary reads one parameter at a time. Measured as the peak resident set
// of the child process (GNU time's "Maximum resident set size"). PPL_LONG=1 adds the target of
// 4 × 5,000,000 draws of eight schools under 500 MB.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { CLI_NODE_ARGS, ROOT, tempDir } from "./helpers.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const TIME = "/usr/bin/time";
const FIXTURE = join(ROOT, "packages/cli/test/fixtures/memory");

// Runs `ppl ARGS` under GNU time; its exit code and peak resident set in MB.
function peakRss(args: readonly string[]): Promise<{ code: number | null; mb: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ["-v", process.execPath, ...CLI_NODE_ARGS, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      if (m === null) reject(new Error(`no peak resident set in GNU time's output: ${stderr.slice(-2000)}`));
      else resolve({ code, mb: Number(m[1]) / 1024, stderr });
    });
  });
}

describe.runIf(existsSync(TIME))("ppl sample's memory", () => {
  // 50 parameters: the sampler's own record of 200,000 draws would be 200,000 × (50 + 7) × 8 bytes
  // = 91 MB more than that of 10,000; --thin 100 keeps the files and the summary small, so that the
  // difference measured is what the run holds in memory, with a margin of 40 MB for the noise of
  // the garbage collector.
  it("does not grow between 10,000 and 200,000 draws", async () => {
    const rss: number[] = [];
    for (const draws of [10_000, 200_000]) {
      const out = tempDir();
      const r = await peakRss([
        "sample", join(FIXTURE, "iid-normal.ts"), "--data", join(FIXTURE, "iid-normal.json"), "--warmup", "100", "--draws", String(draws),
        "--thin", "100", "--chains", "1", "--seed", "1", "--output", out, "--quiet",
      ]);
      expect(r.code, r.stderr).toBe(0);
      // Every kept draw is in the file, and the spill is gone.
      const csv = readStanCsv(readFileSync(join(out, "chain-1.csv"), "utf8"));
      expect(csv.draws[0]!.length).toBe(draws / 100);
      expect(readdirSync(out).sort()).toEqual(["chain-1.csv", "summary.json"]);
      rss.push(r.mb);
    }
    expect(rss[1]! - rss[0]!).toBeLessThan(40);
  });

  it.runIf(LONG)("samples and summarizes 4 × 5,000,000 draws of eight schools under 500 MB", async () => {
    const out = tempDir();
    const r = await peakRss([
      "sample", join(ROOT, "examples/eight_schools.ts"), "--data", join(ROOT, "examples/eight_schools.json"), "--warmup", "1000", "--draws", "5000000",
      "--chains", "4", "--seed", "1", "--output", out, "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.mb).toBeLessThan(500);
    expect(readdirSync(out).sort()).toEqual(["chain-1.csv", "chain-2.csv", "chain-3.csv", "chain-4.csv", "summary.json"]);
  }, 6 * 3600_000);
});
