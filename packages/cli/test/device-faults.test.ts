// `ppl sample --backend vulkan` on a device without the memory the model needs (lavapipe with its
// heap limited by the addon's test hook PPL_VULKAN_TEST_HEAP_LIMIT): exit code 4 and one line
// naming the size, the limit and the fix, no stack trace; the CPU backend runs the same model.
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
});
