// `ppl sample --checkpoint-every N` killed with SIGKILL at a random point of warmup or sampling and
// continued with `--resume` leaves the CSV files and summary of the run that was never stopped, bit
// for bit: on the CPU and on the GPU's sampler (lavapipe in CI), in f32 and f64. The kill points
// come from a fixed seed; PPL_LONG=1 adds more of them.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import { runCli, startCli, type CliResult } from "./helpers.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const WARMUP = 150;
const DRAWS = 150;
const TOTAL = WARMUP + DRAWS;
const RUN = ["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--chains", "2", "--warmup", String(WARMUP), "--draws", String(DRAWS), "--seed", "5", "--save-warmup", "--quiet"];
const FILES = ["chain-1.csv", "chain-2.csv"];

/** Where a run samples: the CLI's flags. */
interface Backend {
  readonly name: string;
  readonly flags: readonly string[];
  /** --checkpoint-every: on the GPU a checkpoint waits for the end of a block of iterations. */
  readonly every: string;
  /**
   * The first iteration a checkpoint can be taken after: every iteration on the CPU; on the GPU
   * the first block's end (its warmup blocks end where the host updates the metric, after
   * iteration 99 of 150, and its sampling blocks are 100 iterations long).
   */
  readonly first: number;
}

const CPU: Backend = { name: "cpu", flags: ["--backend", "cpu"], every: "5", first: 5 };
const LAVAPIPE_F32: Backend = { name: "vulkan f32", flags: ["--backend", "vulkan", "--dtype", "f32"], every: "10", first: 100 };
const LAVAPIPE_F64: Backend = { name: "vulkan f64", flags: ["--backend", "vulkan", "--dtype", "f64"], every: "10", first: 100 };
// The chains split over two managers of the one device (as over two GPUs): their blocks end
// together, and the draws are one device's, so the resumed run is compared with LAVAPIPE_F32's.
const LAVAPIPE_SPLIT: Backend = { name: "vulkan f32 --device 0,0", flags: ["--backend", "vulkan", "--dtype", "f32", "--device", "0,0"], every: "10", first: 100 };

// Kill points: the iteration (warmup's included, as --save-warmup writes them) whose row in
// chain-1.csv the run has written when it is killed, past the backend's first checkpoint and
// short of the end. One in warmup and one in sampling, more with PPL_LONG.
function killPoints(backend: Backend, seed: number): number[] {
  const n = LONG ? 4 : 1;
  const warmup = fc.sample(fc.integer({ min: backend.first + 1, max: WARMUP - 1 }), { seed, numRuns: n });
  const sampling = fc.sample(fc.integer({ min: WARMUP + 1, max: TOTAL - 20 }), { seed: seed + 1, numRuns: n });
  return [...warmup, ...sampling];
}

// Draw rows (warmup's included) written so far to a chain file.
function rowsWritten(path: string): number {
  if (!existsSync(path)) return 0;
  return readFileSync(path, "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#") && !l.startsWith("lp__")).length;
}

// The checkpoint's iteration, once DIR/checkpoint.json exists (it is replaced whole, by a rename).
function checkpointIteration(dir: string): number {
  const path = join(dir, "checkpoint.json");
  if (!existsSync(path)) return -1;
  return (JSON.parse(readFileSync(path, "utf8")) as { sampler: { state: { iteration: number } } }).sampler.state.iteration;
}

// Every chain file of `cut` holds the draws, warmup draws and adaptation of `whole`'s, and the summaries are the same.
function expectSameRun(whole: string, cut: string, label: string): void {
  for (const file of FILES) {
    const x = readStanCsv(readFileSync(join(whole, file), "utf8"));
    const y = readStanCsv(readFileSync(join(cut, file), "utf8"));
    expect(y.columns, label).toEqual(x.columns);
    expect(y.adaptation, label).toEqual(x.adaptation);
    expect(y.draws[0]!.length, label).toBe(DRAWS);
    expect(y.warmupDraws[0]!.length, label).toBe(WARMUP);
    x.columns.forEach((c, k) => {
      expect(Array.from(y.draws[k]!), `${label} ${file} ${c}`).toEqual(Array.from(x.draws[k]!));
      expect(Array.from(y.warmupDraws[k]!), `${label} ${file} warmup ${c}`).toEqual(Array.from(x.warmupDraws[k]!));
    });
  }
  expect(readFileSync(join(cut, "summary.json"), "utf8"), label).toBe(readFileSync(join(whole, "summary.json"), "utf8"));
}

// Runs with checkpoints, kills the run with SIGKILL once chain-1.csv holds `at` rows, resumes it, and compares with the whole run.
async function killAndResume(backend: Backend, at: number, whole: { dir: string; result: CliResult }): Promise<void> {
  const label = `${backend.name}, killed at iteration ${at}`;
  const cut = mkdtempSync(join(tmpdir(), "resume-cut-"));
  const args = [...RUN, ...backend.flags, "--output", cut];
  const { child, done } = startCli([...args, "--checkpoint-every", backend.every]);
  while (rowsWritten(join(cut, FILES[0]!)) < at && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
  child.kill("SIGKILL");
  const killed = await done;
  expect(killed.signal, `${label}: ${killed.stderr}`).toBe("SIGKILL");
  const from = checkpointIteration(cut);
  expect(from, label).toBeGreaterThan(0);
  expect(from, label).toBeLessThan(TOTAL);
  const resumed = await runCli([...args, "--resume"]);
  expect(resumed.code, `${label}: ${resumed.stderr}`).toBe(0);
  expect(resumed.stdout, label).toBe(whole.result.stdout);
  expectSameRun(whole.dir, cut, `${label} (resumed from ${from})`);
}

// The uninterrupted run of each backend, in a directory of its own, made once.
const wholeRuns = new Map<string, Promise<{ dir: string; result: CliResult }>>();
function wholeRun(backend: Backend): Promise<{ dir: string; result: CliResult }> {
  let run = wholeRuns.get(backend.name);
  if (run === undefined) wholeRuns.set(backend.name, (run = runWhole(backend)));
  return run;
}

async function runWhole(backend: Backend): Promise<{ dir: string; result: CliResult }> {
  const dir = mkdtempSync(join(tmpdir(), "resume-whole-"));
  const result = await runCli([...RUN, ...backend.flags, "--output", dir]);
  expect(result.code, result.stderr).toBe(0);
  return { dir, result };
}

describe("ppl sample --checkpoint-every, --resume", () => {
  it("refuses a directory without a checkpoint, and a resume with other settings or another backend", async () => {
    const cut = mkdtempSync(join(tmpdir(), "resume-cut-"));
    const none = await runCli([...RUN, ...CPU.flags, "--output", cut, "--resume"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("has no checkpoint.json; only a run started with --checkpoint-every can be resumed");
    const { child, done } = startCli([...RUN, ...CPU.flags, "--output", cut, "--checkpoint-every", "10"]);
    while (checkpointIteration(cut) < 10 && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    child.kill("SIGKILL");
    await done;
    const wrong = await runCli([...RUN.map((x, i) => (RUN[i - 1] === "--draws" ? "500" : x)), ...CPU.flags, "--output", cut, "--resume"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`--resume: the checkpoint's run has --draws ${DRAWS}, this command 500`);
    const elsewhere = await runCli([...RUN, "--backend", "cpu", "--dtype", "f32", "--output", cut, "--resume"]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain("--resume: the checkpoint's run sampled with --backend cpu --dtype f64, this command with --backend cpu --dtype f32; resume with --backend cpu --dtype f64");
  }, 300_000);

  it.each(killPoints(CPU, 47))("on the CPU, killed once iteration %i is written, resumes to the uninterrupted run's files", async (at) => {
    await killAndResume(CPU, at, await wholeRun(CPU));
  }, 300_000);

  // The GPU's sampler runs blocks of iterations; a checkpoint waits for a block's end, where the
  // batch is its whole state, so a kill resumes from the last block's end before it.
  describe.runIf(usableDevices().length > 0)("on the GPU's sampler (--backend vulkan)", () => {
    it.each(killPoints(LAVAPIPE_F32, 48).slice(0, LONG ? undefined : 1))("f32, killed once iteration %i is written, resumes to the uninterrupted run's files", async (at) => {
      await killAndResume(LAVAPIPE_F32, at, await wholeRun(LAVAPIPE_F32));
    }, 300_000);

    it.each(killPoints(LAVAPIPE_F64, 49).slice(LONG ? 0 : 1))("f64, killed once iteration %i is written, resumes to the uninterrupted run's files", async (at) => {
      await killAndResume(LAVAPIPE_F64, at, await wholeRun(LAVAPIPE_F64));
    }, 300_000);

    it.each(killPoints(LAVAPIPE_SPLIT, 50).slice(LONG ? 0 : 1))("f32 over two managers (--device 0,0), killed once iteration %i is written, resumes to the uninterrupted run's files", async (at) => {
      await killAndResume(LAVAPIPE_SPLIT, at, await wholeRun(LAVAPIPE_F32));
    }, 300_000);
  });
});
