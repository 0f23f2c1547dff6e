// `ppl sample --threads N`: the chains on N threads on the CPU draw what one thread draws.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasStackTrace, runCli, tempDir } from "./helpers.ts";

// The CSV lines that a run's timing and paths do not change.
function drawn(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => !/^#\s+(Elapsed Time|\d[\d.]* seconds)|start_datetime|file = /.test(l));
}

describe("ppl sample --threads", () => {
  it("two threads write the files one thread writes, draw for draw", async () => {
    // Long enough (about a second on one thread) for the chains to be handed over to a worker.
    const args = ["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--backend", "cpu", "--chains", "4", "--draws", "6000", "--seed", "5", "--quiet"];
    const dirs = [join(tempDir(), "one"), join(tempDir(), "two")];
    for (const [k, threads] of ["1", "2"].entries()) {
      const r = await runCli([...args, "--threads", threads, "--output", dirs[k]!]);
      expect(r.code, r.stderr).toBe(0);
      expect(hasStackTrace(r.stderr)).toBe(false);
    }
    for (let c = 1; c <= 4; c++) expect(drawn(join(dirs[1]!, `chain-${c}.csv`))).toEqual(drawn(join(dirs[0]!, `chain-${c}.csv`)));
  });

  it("is a usage error with the GPU sampler, and out of range", async () => {
    const model = ["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--output", join(tempDir(), "x")];
    const gpu = await runCli([...model, "--backend", "vulkan", "--threads", "2"]);
    expect(gpu.code).toBe(2);
    expect(gpu.stderr).toMatch(/--threads spreads the CPU sampler's chains over threads; the GPU sampler runs every chain itself/);
    const zero = await runCli([...model, "--threads", "0"]);
    expect(zero.code).toBe(2);
  });
});
