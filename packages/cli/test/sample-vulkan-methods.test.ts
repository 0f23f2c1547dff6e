// `ppl sample --algorithm meads|hmc|chees --backend vulkan`: the inference layer's methods on the
// GPU's batched gradient (their controllers on the host, each round of all chains' gradients one
// device evaluation), end to end through the command on whatever Vulkan device the machine has
// (lavapipe in CI), their files read back by `ppl summary`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { usableDevices } from "@ppl/vulkan";
import { hasStackTrace, readCsv, runCli, tempDir } from "./helpers.ts";

const EIGHT = ["examples/eight_schools.ts", "--data", "examples/eight_schools.json"];
const device = usableDevices()[0];
const LONG = process.env.PPL_LONG === "1";

describe.runIf(device !== undefined)("ppl sample with a layer method on the GPU's batched gradient", () => {
  it("--algorithm meads: 8 chains on the device, CSVs that ppl summary reads", async () => {
    const out = join(tempDir(), "meads");
    const run = await runCli(["sample", ...EIGHT, "--algorithm", "meads", "--backend", "vulkan", "--chains", "8", "--warmup", "40", "--draws", "20", "--seed", "4", "--output", out, "--refresh", "0"]);
    expect(run.code, run.stderr).toBe(0);
    expect(hasStackTrace(run.stderr)).toBe(false);
    expect(run.stderr).toMatch(/^backend: vulkan \(f32\) on device \d+ '.*', as requested; --algorithm meads: its transitions on the host/m);
    expect(run.stderr).toMatch(/^GPU batched gradient: the method's transitions run on the host, each round of all 8 chains' gradients one device submission \(\d+ kernels?\) and one read$/m);
    const csv = readCsv(join(out, "chain-8.csv"));
    expect(csv.config["backend"]).toBe("vulkan");
    expect(csv.config["sampling_method"]).toBe("meads");
    expect(csv.draws[0]!.length).toBe(20);
    const summary = await runCli(["summary", out]);
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stdout).toMatch(/^mu +-?\d/m);
    const json = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Record<string, { mean: number }>;
    expect(Number.isFinite(json["tau"]!.mean)).toBe(true);
  });

  it("--algorithm hmc --steps 5: static HMC on the device's gradient, 5 leapfrogs a transition, read by ppl summary", async () => {
    const out = join(tempDir(), "hmc");
    const run = await runCli(["sample", ...EIGHT, "--algorithm", "hmc", "--steps", "5", "--backend", "vulkan", "--chains", "4", "--warmup", "30", "--draws", "20", "--seed", "2", "--output", out, "--refresh", "0"]);
    expect(run.code, run.stderr).toBe(0);
    const csv = readCsv(join(out, "chain-1.csv"));
    expect(csv.config["engine"]).toBe("static");
    expect(csv.config["backend"]).toBe("vulkan");
    expect(new Set(csv.draws[csv.columns.indexOf("n_leapfrog__")]!)).toEqual(new Set([5]));
    const summary = await runCli(["summary", out]);
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stdout).toMatch(/^tau +\d/m);
  });

  // The device's gradient is the CPU's bits; its lp may differ in the last place (another order of
  // summation), which reaches the draws through the accept statistics: equal to 1e-10 (a short run
  // differs by about 1e-12), not bit for bit.
  it.runIf(LONG && device?.features.shaderFloat64 === true)("--algorithm chees --dtype f64 writes the CPU backend's draws for the same seed, to rounding (PPL_LONG=1: two runs of the command; layer-methods-vulkan.test.ts compares the library's)", async () => {
    const dir = tempDir();
    const args = ["sample", ...EIGHT, "--algorithm", "chees", "--chains", "8", "--warmup", "10", "--draws", "10", "--seed", "9", "--stepsize", "0.3", "--dtype", "f64", "--refresh", "0"];
    const [gpu, cpu] = [await runCli([...args, "--backend", "vulkan", "--output", join(dir, "gpu")]), await runCli([...args, "--backend", "cpu", "--output", join(dir, "cpu")])];
    expect(gpu.code, gpu.stderr).toBe(0);
    expect(cpu.code, cpu.stderr).toBe(0);
    for (let c = 1; c <= 8; c++) {
      const a = readCsv(join(dir, "gpu", `chain-${c}.csv`));
      const b = readCsv(join(dir, "cpu", `chain-${c}.csv`));
      expect(a.columns).toEqual(b.columns);
      a.draws.forEach((col, j) => col.forEach((v, i) => expect(Math.abs(v - b.draws[j]![i]!), `${a.columns[j]} draw ${i}`).toBeLessThan(1e-10)));
    }
  });

  it("--algorithm chees over several devices is a usage error naming the fix", async () => {
    const run = await runCli(["sample", ...EIGHT, "--algorithm", "chees", "--backend", "vulkan", "--device", `${device!.index},${device!.index}`, "--output", tempDir(), "--quiet"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^ppl: --algorithm chees evaluates its chains' gradients on one device; give --device one index/m);
  });
});
