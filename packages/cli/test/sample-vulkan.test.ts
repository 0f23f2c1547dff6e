// `ppl sample --backend vulkan`: the fused GPU NUTS kernel behind the CLI, on whatever Vulkan
// device the machine has (lavapipe in CI), as a user runs it.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectChains, SAMPLER_COLUMNS, summarize } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import { hasStackTrace, readCsv, runCli, tempDir } from "./helpers.ts";

const cpuDevice = usableDevices()[0]?.type === "cpu";

describe.runIf(usableDevices().length > 0)("ppl sample --backend vulkan", () => {
  it("samples eight schools on the fused GPU kernel, writes valid CSVs and a sane posterior", async () => {
    const out = join(tempDir(), "gpu");
    const run = await runCli([
      "sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--backend", "vulkan", "--gpu-shape", "thread",
      "--chains", "4", "--warmup", "300", "--draws", "300", "--seed", "3", "--output", out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^backend: vulkan \(f32\) on device \d+ '.*', as requested$/m);
    expect(run.stderr).toMatch(/^GPU NUTS kernel: thread per chain$/m);
    // Eight schools' trajectories stay far below lavapipe's loop limit, but the user is told of it.
    if (cpuDevice) expect(run.stderr).toMatch(/^warning: on a CPU implementation of Vulkan shader loops stop after 65,535 iterations.*--gpu-shape device/m);
    else expect(run.stderr).not.toMatch(/^warning:/m);
    expect(hasStackTrace(run.stderr)).toBe(false);
    const files = Array.from({ length: 4 }, (_, c) => readCsv(join(out, `chain-${c + 1}.csv`)));
    for (const f of files) {
      expect(f.columns.slice(0, SAMPLER_COLUMNS.length)).toEqual([...SAMPLER_COLUMNS]);
      expect(f.config["backend"]).toBe("vulkan");
      expect(f.config["dtype"]).toBe("f32");
      expect(f.draws[0]!.length).toBe(300);
    }
    const chains = collectChains(files);
    const s = summarize(chains.parameters);
    // The reference posterior of mu is 4.4 ± 3.3 (posteriordb); 1200 draws put the mean well inside ±2.
    expect(Math.abs(s.parameters.find((p) => p.name === "mu")!.mean - 4.4)).toBeLessThan(2);
    expect(s.parameters.find((p) => p.name === "tau")!.mean).toBeGreaterThan(1.5);
  });

  it("--gpu-shape device (the default on a CPU implementation): batched gradient and controller kernels sample eight schools end to end", async () => {
    const out = join(tempDir(), "gpu-device");
    const run = await runCli([
      "sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--backend", "vulkan",
      ...(cpuDevice ? [] : ["--gpu-shape", "device"]),
      "--chains", "4", "--warmup", "200", "--draws", "200", "--seed", "5", "--output", out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^GPU NUTS: whole device per gradient/m);
    expect(run.stderr).not.toMatch(/^warning:/m);
    const files = Array.from({ length: 4 }, (_, c) => readCsv(join(out, `chain-${c + 1}.csv`)));
    files.forEach((f) => expect(f.draws[0]!.length).toBe(200));
    const s = summarize(collectChains(files).parameters);
    // mu is 4.4 ± 3.3 in the reference posterior; 800 draws put the mean well inside ±2.5.
    expect(Math.abs(s.parameters.find((p) => p.name === "mu")!.mean - 4.4)).toBeLessThan(2.5);
    expect(s.parameters.find((p) => p.name === "tau")!.mean).toBeGreaterThan(1.5);
  });

  it("--gpu-shape with --backend cpu is a usage error", async () => {
    const run = await runCli(["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--backend", "cpu", "--gpu-shape", "device"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--gpu-shape .* no meaning with --backend cpu/);
  });

  it("--metric dense on the GPU adapts a dense metric and writes it to the CSV", async () => {
    const out = join(tempDir(), "gpu-dense");
    const run = await runCli([
      "sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--backend", "vulkan", "--metric", "dense",
      "--chains", "4", "--warmup", "300", "--draws", "300", "--seed", "7", "--output", out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const files = Array.from({ length: 4 }, (_, c) => readCsv(join(out, `chain-${c + 1}.csv`)));
    for (const f of files) {
      expect(f.config["metric"]).toBe("dense_e");
      const m = f.adaptation!.inverseMetric as number[][];
      expect(m.length).toBe(10);
      // Adapted, not the unit matrix: some off-diagonal entry is non-zero.
      expect(m.some((row, i) => row.some((v, j) => i !== j && v !== 0))).toBe(true);
    }
    const s = summarize(collectChains(files).parameters);
    expect(Math.abs(s.parameters.find((p) => p.name === "mu")!.mean - 4.4)).toBeLessThan(2);
  });
});
