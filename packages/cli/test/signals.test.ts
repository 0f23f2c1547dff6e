// A stop signal at any moment of `ppl sample` (warmup, sampling, the summary): the command ends
// within 2 seconds of it (the bound the CLI promises, measured here from the signal to the exit),
// every CSV file holds whole rows, and the summary is made if it fits in that time, or else the
// note names `ppl summary DIR`. A second signal exits at once. The phase is found from the
// PPL_TRACE_PHASES lines on stderr; PPL_TEST_SUMMARY_STEP_MS makes the summary as slow as a large
// run's. PPL_LONG=1 adds a stop during sampling whose summary does not fit, and a stop during a
// summary that does.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { eachLine } from "../src/line-reader.ts";
import { CLI_NODE_ARGS, hasStackTrace, ROOT, runCli, tempDir } from "./helpers.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const CHAINS = 2;
// The bound of the issue: a stop ends the command within 2 s.
const STOP_WITHIN_MS = 2000;

interface Stopped {
  readonly code: number | null;
  readonly stderr: string;
  readonly stdout: string;
  /** Milliseconds from the first signal to the process's exit. */
  readonly exitMs: number;
}

// Runs `ppl sample` on eight schools into `out` and sends `signals` once stderr says `phase: <at>`
// (`afterMs` later: a moment inside that phase's work).
function stopAt(at: string, args: readonly string[], out: string, signals: readonly NodeJS.Signals[], env: Record<string, string> = {}, afterMs = 0): Promise<Stopped> {
  const child = spawn(process.execPath, [
    ...CLI_NODE_ARGS, "sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json",
    "--chains", String(CHAINS), "--seed", "5", "--output", out, ...args,
  ], { cwd: ROOT, env: { ...process.env, PPL_TRACE_PHASES: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  let sentAt = NaN;
  child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
    if (Number.isNaN(sentAt) && stderr.includes(`phase: ${at}\n`)) {
      sentAt = Infinity;
      setTimeout(() => {
        sentAt = performance.now();
        for (const signal of signals) child.kill(signal);
      }, afterMs);
    }
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (!Number.isFinite(sentAt)) reject(new Error(`ppl ended before phase ${at} and ${afterMs} ms (exit ${code}): ${stderr}`));
      else resolve({ code, stderr, stdout, exitMs: performance.now() - sentAt });
    });
  });
}

// Every line of a chain's file after its column line is a comment or a whole row; read a line at a
// time (a chain file of 1,500,000 draws is longer than a JavaScript string holds). Its rows, and
// whether it ends with CmdStan's timing footer.
function wholeRows(path: string): { rows: number; footer: boolean } {
  let columns = 0;
  let rows = 0;
  let footer = false;
  eachLine(path, (line, lineNo) => {
    expect(lineNo, `${path} ends with a newline`).toBeGreaterThan(0);
    if (line.startsWith("#")) {
      if (line.includes("seconds (Total)")) footer = true;
    } else if (columns === 0) {
      if (line.startsWith("lp__,")) columns = line.split(",").length;
    } else if (line.split(",").length !== columns) expect(line.split(",").length, `${path}: ${line}`).toBe(columns);
    else rows++;
  });
  expect(columns, path).toBeGreaterThan(0);
  return { rows, footer };
}

const files = (out: string) => Array.from({ length: CHAINS }, (_, c) => join(out, `chain-${c + 1}.csv`));

// The files of a run that closed them (a first signal): whole rows, the timing footer.
function closedCleanly(out: string): number[] {
  return files(out).map((path) => {
    const { rows } = wholeRows(path);
    const csv = readStanCsv(readFileSync(path, "utf8"));
    expect(csv.truncated, path).toBe(false);
    expect(csv.timing?.total, path).toBeGreaterThanOrEqual(0);
    return rows;
  });
}

describe("a stop signal at any moment of ppl sample", () => {
  it("during warmup: exit 143 within 2 s, the files closed with their headers, the note says so", async () => {
    const out = join(tempDir(), "run");
    const r = await stopAt("warmup", ["--warmup", "1000000", "--draws", "10"], out, ["SIGTERM"]);
    expect(r.code, r.stderr).toBe(143);
    expect(r.exitMs).toBeLessThan(STOP_WITHIN_MS);
    expect(r.stderr).toMatch(/interrupted by SIGTERM during warmup \(after \d+ of 1000000 warmup iterations\): no sampling draws were made/);
    expect(hasStackTrace(r.stderr)).toBe(false);
    expect(closedCleanly(out)).toEqual([0, 0]);
  }, 60_000);

  it("during sampling: exit 130 within 2 s, the draws so far in whole rows and summarized", async () => {
    const out = join(tempDir(), "run");
    const r = await stopAt("sampling", ["--warmup", "30", "--draws", "1000000"], out, ["SIGINT"]);
    expect(r.code, r.stderr).toBe(130);
    expect(r.exitMs).toBeLessThan(STOP_WITHIN_MS);
    expect(r.stderr).toMatch(/interrupted by SIGINT: \d+ of 1000000 draws per chain .* summarized in summary.json; `ppl summary .*` prints the summary/);
    const rows = closedCleanly(out);
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).sampler__.draws_per_chain).toBe(Math.min(...rows));
  }, 60_000);

  it.runIf(LONG)("during sampling, with a summary too slow for the time left: exit within 2 s without it, the note names ppl summary DIR", async () => {
    const out = join(tempDir(), "run");
    const r = await stopAt("sampling", ["--warmup", "30", "--draws", "1000000"], out, ["SIGINT"], { PPL_TEST_SUMMARY_STEP_MS: "200" });
    expect(r.code, r.stderr).toBe(130);
    expect(r.exitMs).toBeLessThan(STOP_WITHIN_MS);
    expect(r.stderr).toMatch(/are in 2 valid CSV files in .*, not summarized \(there was no time left: a stop ends the command within 2 s\); `ppl summary .*` prints the summary/);
    expect(existsSync(join(out, "summary.json"))).toBe(false);
    closedCleanly(out);
  }, 60_000);

  it("during the summary: exit 130 within 2 s, the run's files complete, the note names ppl summary DIR, which then summarizes", async () => {
    const out = join(tempDir(), "run");
    const r = await stopAt("summary", ["--warmup", "30", "--draws", "100"], out, ["SIGINT"], { PPL_TEST_SUMMARY_STEP_MS: "200" });
    expect(r.code, r.stderr).toBe(130);
    expect(r.exitMs).toBeLessThan(STOP_WITHIN_MS);
    expect(r.stderr).toMatch(/interrupted by SIGINT during the summary: the run is complete and its 2 CSV files in .* are valid, but there was no time left for the summary .*; `ppl summary .*` prints it/);
    expect(existsSync(join(out, "summary.json"))).toBe(false);
    expect(closedCleanly(out)).toEqual([100, 100]);
    const s = await runCli(["summary", out, "--json"]);
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).sampler__.draws_per_chain).toBe(100);
  }, 60_000);

  it.runIf(LONG)("during a summary that fits in the time left: it is made and printed, exit 130 within 2 s", async () => {
    const out = join(tempDir(), "run");
    // Eight schools has 18 columns to summarize: 18 × 25 ms fits in the second the summary may take.
    const r = await stopAt("summary", ["--warmup", "30", "--draws", "100"], out, ["SIGINT"], { PPL_TEST_SUMMARY_STEP_MS: "25" });
    expect(r.code, r.stderr).toBe(130);
    expect(r.exitMs).toBeLessThan(STOP_WITHIN_MS);
    expect(r.stderr).toContain("interrupted by SIGINT during the summary, which was made in time");
    expect(r.stdout).toMatch(/theta\[8\]/);
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).sampler__.draws_per_chain).toBe(100);
  }, 60_000);

  // No test delay: a real summary of 2 × 1,500,000 draws, whose every parameter takes many seconds
  // on two cores. The signal comes at the summary's start (the chains' reads) and, in a second run,
  // 8 s into it, inside the first parameter's passes (its split chains' ranks and transforms, steps
  // of a second and more each before they yielded inside their loops): the stop is answered inside
  // one parameter's work, not only between parameters or between its split chains.
  it.runIf(LONG).each([0, 8000])("during the summary of 2 × 1,500,000 draws, %i ms into it: exit 130 within 2 s, the files complete, the note names ppl summary DIR (PPL_LONG=1)", async (afterMs) => {
    const out = join(tempDir(), "run");
    const r = await stopAt("summary", ["--warmup", "100", "--draws", "1500000", "--refresh", "0"], out, ["SIGINT"], {}, afterMs);
    expect(r.code, r.stderr).toBe(130);
    expect(r.exitMs).toBeLessThan(STOP_WITHIN_MS);
    expect(r.stderr).toMatch(/interrupted by SIGINT during the summary: the run is complete .*; `ppl summary .*` prints it/);
    // Too long to read whole (closedCleanly): whole rows, every draw, the timing footer.
    expect(files(out).map((path) => wholeRows(path))).toEqual([{ rows: 1_500_000, footer: true }, { rows: 1_500_000, footer: true }]);
    expect(existsSync(join(out, "summary.json"))).toBe(false);
  }, 1_200_000);

  it("a second signal exits at once, every row on disk whole", async () => {
    const out = join(tempDir(), "run");
    const r = await stopAt("sampling", ["--warmup", "30", "--draws", "1000000"], out, ["SIGINT", "SIGINT"]);
    expect(r.code, r.stderr).toBe(130);
    expect(r.exitMs).toBeLessThan(STOP_WITHIN_MS);
    for (const path of files(out)) wholeRows(path);
  }, 60_000);
});
