// `ppl sample --backend vulkan` meeting device faults on lavapipe, through the addon's test hooks:
// a device without the memory the model needs (PPL_VULKAN_TEST_HEAP_LIMIT) gives exit code 4 and
// one line naming the size, the limit and the fix, and the CPU backend runs the same model; a
// device lost in the middle of the run (PPL_VULKAN_TEST_FAULT) gives exit code 4 and one line
// naming the call, not an internal error, with the CSV files ending at complete lines.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasStackTrace, runCli, tempDir } from "./helpers.ts";

const MODEL = ["examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--chains", "2", "--warmup", "20", "--draws", "20", "--seed", "3", "--quiet"];

describe("ppl sample on a device that lacks the memory", () => {
  it("fails with a device error naming the bytes asked for and the heap's size; --backend cpu runs", async () => {
    const dir = tempDir("ppl-device-faults-");
    const r = await runCli(["sample", ...MODEL, "--backend", "vulkan", "--output", join(dir, "gpu")], { PPL_VULKAN_TEST_HEAP_LIMIT: "4096" });
    expect(r.code, r.stderr).toBe(4);
    expect(hasStackTrace(r.stderr)).toBe(false);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ppl: the Vulkan device could not run the model's sampler: vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY: out of device memory: \d+ bytes \([\d.]+ KiB\) do not fit in memory heap 0, which holds 4096 bytes \(4\.0 KiB\) with \d+ bytes already in use by this manager; .*; use --backend cpu$/);
    const cpu = await runCli(["sample", ...MODEL, "--backend", "cpu", "--output", join(dir, "cpu")], { PPL_VULKAN_TEST_HEAP_LIMIT: "4096" });
    expect(cpu.code, cpu.stderr).toBe(0);
  });

  it("a device lost mid-run: a device error naming the failed call, exit 4, no stack trace; the CSV files end at complete lines", async () => {
    const dir = tempDir("ppl-device-lost-");
    const out = join(dir, "run");
    const r = await runCli(["sample", ...MODEL, "--backend", "vulkan", "--output", out], { PPL_VULKAN_TEST_FAULT: "vkWaitForFences:VK_ERROR_DEVICE_LOST:8" });
    expect(r.code, r.stderr).toBe(4);
    expect(hasStackTrace(r.stderr)).toBe(false);
    expect(r.stderr).toBe(`ppl: the Vulkan device failed while sampling: vkWaitForFences failed: VK_ERROR_DEVICE_LOST; the CSV files in ${out} end at the last draw written; run again, or use --backend cpu\n`);
    const files = readdirSync(out).filter((f) => f.endsWith(".csv")).sort();
    expect(files).toEqual(["chain-1.csv", "chain-2.csv"]);
    for (const f of files) expect(readFileSync(join(out, f), "utf8")).toMatch(/\nlp__,accept_stat__,[^\n]*\n(?:[^\n]*\n)*$/);
  });
});
