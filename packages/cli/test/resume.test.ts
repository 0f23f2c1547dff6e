// `ppl sample --checkpoint-every N` killed with SIGKILL and continued with `--resume` leaves the
// CSV files and summary of the run that was never stopped, bit for bit.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { runCli, startCli } from "./helpers.ts";

const RUN = ["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--chains", "2", "--warmup", "150", "--draws", "400", "--seed", "5", "--backend", "cpu", "--quiet"];
const WARMUP = 150;

// The checkpoint's iteration, once DIR/checkpoint.json exists (it is replaced whole, by a rename).
function checkpointIteration(dir: string): number {
  const path = join(dir, "checkpoint.json");
  if (!existsSync(path)) return -1;
  return (JSON.parse(readFileSync(path, "utf8")) as { sampler: { state: { iteration: number } } }).sampler.state.iteration;
}

describe("ppl sample --checkpoint-every, --resume", () => {
  it("a run killed during sampling and resumed writes the uninterrupted run's draws, adaptation and summary", async () => {
    const whole = mkdtempSync(join(tmpdir(), "resume-whole-"));
    const cut = mkdtempSync(join(tmpdir(), "resume-cut-"));
    const none = await runCli([...RUN, "--output", cut, "--resume"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("has no checkpoint.json; only a run started with --checkpoint-every can be resumed");

    const a = await runCli([...RUN, "--output", whole]);
    expect(a.code).toBe(0);
    const { child, done } = startCli([...RUN, "--output", cut, "--checkpoint-every", "20"]);
    // Killed once a checkpoint past warmup exists: the files then hold the adaptation block and draws after it.
    while (checkpointIteration(cut) <= WARMUP && child.exitCode === null) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    const killed = await done;
    expect(killed.signal).toBe("SIGKILL");
    const at = checkpointIteration(cut);
    expect(at).toBeGreaterThan(WARMUP);
    expect(at).toBeLessThan(WARMUP + 400);

    const wrong = await runCli([...RUN.map((x) => (x === "400" ? "500" : x)), "--output", cut, "--resume"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--resume: the checkpoint's run has --draws 400, this command 500");
    const b = await runCli([...RUN, "--output", cut, "--resume"]);
    expect(b.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    for (const file of ["chain-1.csv", "chain-2.csv"]) {
      const x = readStanCsv(readFileSync(join(whole, file), "utf8"));
      const y = readStanCsv(readFileSync(join(cut, file), "utf8"));
      expect(y.columns).toEqual(x.columns);
      expect(y.adaptation).toEqual(x.adaptation);
      expect(y.draws[0]!.length).toBe(400);
      x.columns.forEach((c, k) => expect(Array.from(y.draws[k]!), `${file} ${c}`).toEqual(Array.from(x.draws[k]!)));
    }
    expect(readFileSync(join(cut, "summary.json"), "utf8")).toBe(readFileSync(join(whole, "summary.json"), "utf8"));
  }, 300_000);
});
