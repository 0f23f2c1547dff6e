// --backend, --device and --dtype of `ppl pathfinder`, `ppl variational` and `ppl laplace`, in
// process: the flags a run cannot honour are usage errors naming the fix, and on a Vulkan device
// with f64 (lavapipe in CI) `--backend vulkan` writes the CPU's draws to rounding, its file saying
// where the batched evaluations ran.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileModel } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import { pathfinderCommand, type PathfinderCommandOptions } from "../src/commands/pathfinder.ts";
import { variationalCommand, type VariationalCommandOptions } from "../src/commands/variational.ts";
import { CliError } from "../src/exit-codes.ts";
import { pathfinderBackend, pathfinderInits } from "../src/pathfinder-init.ts";
import { readCsv, tempDir } from "./helpers.ts";
import { normalPosterior } from "./normal-posterior.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";
import garch from "../../../examples/posteriordb/garch-garch11.ts";

const tmp = tempDir("ppl-approx-backend-");
const { model: NORMAL, data: DATA } = normalPosterior(tmp);
const device = usableDevices()[0];
const silent = { stdout: { write: () => true }, stderr: { write: () => true } };

const PATHFINDER: PathfinderCommandOptions = {
  data: DATA, numPaths: 2, draws: 50, psisResample: true, numElboDraws: 10, historySize: 5, maxLbfgsIters: 1000, init: 2, seed: 4, output: "", quiet: true,
};

async function exitOf(run: () => Promise<number>): Promise<{ code: number; message: string }> {
  try {
    return { code: await run(), message: "" };
  } catch (e) {
    if (e instanceof CliError) return { code: e.exitCode, message: e.message };
    throw e;
  }
}

describe("the approximations' --backend", () => {
  it("--device with --backend cpu, and several devices, are usage errors (exit 2) naming the fix", async () => {
    const cpu = await exitOf(() => pathfinderCommand(NORMAL, { ...PATHFINDER, output: join(tmp, "a"), backend: "cpu", device: 0 }, silent));
    expect(cpu).toEqual({ code: 2, message: expect.stringContaining("--device selects a Vulkan device") });
    const opts: VariationalCommandOptions = {
      data: DATA, algorithm: "meanfield", iter: 100, gradSamples: 1, elboSamples: 10, eta: 1, adaptEngaged: false, adaptIter: 10, tolRelObj: 0.01, evalElbo: 50,
      draws: 10, init: 2, seed: 1, output: join(tmp, "b"), quiet: true, backend: "vulkan", device: [0, 0],
    };
    const many = await exitOf(() => variationalCommand(NORMAL, opts, silent));
    expect(many).toEqual({ code: 2, message: expect.stringContaining("give one index") });
  });

  it.runIf(device !== undefined && device.features.shaderFloat64)("pathfinder --backend vulkan --dtype f64: the CPU's draws to rounding, and a note in the file", async () => {
    const cpuDir = join(tmp, "cpu");
    const gpuDir = join(tmp, "gpu");
    expect(await pathfinderCommand(NORMAL, { ...PATHFINDER, output: cpuDir, backend: "cpu" }, silent)).toBe(0);
    expect(await pathfinderCommand(NORMAL, { ...PATHFINDER, output: gpuDir, backend: "vulkan", dtype: "f64", device: device!.index }, silent)).toBe(0);
    const cpu = readCsv(join(cpuDir, "pathfinder.csv"));
    const gpu = readCsv(join(gpuDir, "pathfinder.csv"));
    expect(gpu.columns).toEqual(cpu.columns);
    gpu.draws.forEach((column, j) => {
      expect(column.length).toBe(cpu.draws[j]!.length);
      column.forEach((v, i) => expect(Math.abs(v - cpu.draws[j]![i]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(v))));
    });
    expect(readFileSync(join(gpuDir, "pathfinder.csv"), "utf8")).toMatch(/^# backend: vulkan \(f64\)/m);
  });

  it.runIf(device?.type === "cpu")("pathfinder --backend auto on a CPU implementation of Vulkan: the CPU's file, bit for bit, and the line that says why", async () => {
    const cpuDir = join(tmp, "cpu-auto");
    const autoDir = join(tmp, "auto");
    const lines: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => lines.push(s) > 0 } };
    expect(await pathfinderCommand(NORMAL, { ...PATHFINDER, output: cpuDir, backend: "cpu" }, silent)).toBe(0);
    expect(await pathfinderCommand(NORMAL, { ...PATHFINDER, output: autoDir, backend: "auto", quiet: false }, io)).toBe(0);
    expect(readCsv(join(autoDir, "pathfinder.csv")).draws).toEqual(readCsv(join(cpuDir, "pathfinder.csv")).draws);
    expect(lines.join("")).toMatch(/backend: cpu \(f64\) — Vulkan device \d+ '.*' is a CPU implementation; the CPU backend is faster \(use --backend vulkan to run on it anyway\)/);
  });
});

describe("ppl sample --init pathfinder: its paths on the sampling run's backend", () => {
  it("the run's GPU (device, float type) where it samples there from the start; the CPU where it starts on the CPU", () => {
    expect(pathfinderBackend({ backend: "cpu", dtype: "f64" })).toEqual({ backend: "cpu" });
    expect(pathfinderBackend({ backend: "vulkan", dtype: "f32", device: 1 })).toEqual({ backend: "vulkan", dtype: "f32", device: 1 });
    expect(pathfinderBackend({ backend: "vulkan", dtype: "f64", devices: [2, 3] })).toEqual({ backend: "vulkan", dtype: "f64", device: 2 });
    expect(pathfinderBackend({ backend: "vulkan", dtype: "f32" })).toEqual({ backend: "vulkan", dtype: "f32" });
    // auto's run that starts on the CPU and may move to the GPU midway.
    expect(pathfinderBackend({ backend: "vulkan", dtype: "f32", cpuFallback: { dtype: "f64" } })).toEqual({ backend: "cpu" });
  });

  it.runIf(device !== undefined && device.features.shaderFloat64)("on a Vulkan device in f64: the CPU's initial points to rounding, the note saying where the paths ran", async () => {
    // Eight schools, not the normal posterior: there every iterate's approximation is exact, so a
    // path's best iterate is chosen among ELBOs equal but for rounding, which the device's
    // last-place differences may flip (other draws, of the same distribution).
    const compiled = compileModel(eightSchools, JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")));
    const cpu = await pathfinderInits(compiled, 4, 1, 11, silent);
    const gpu = await pathfinderInits(compiled, 4, 1, 11, silent, { backend: "vulkan", dtype: "f64", device: device!.index });
    expect(gpu.perChain.length).toBe(4);
    gpu.perChain.forEach((q, c) => q.forEach((v, i) => expect(Math.abs(v - cpu.perChain[c]![i]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(v)))));
    expect(gpu.notes.join("\n")).toMatch(/backend: vulkan \(f64\)/);
    expect(cpu.notes.join("\n")).not.toMatch(/backend: vulkan/);
  });

  it.runIf(device?.type === "cpu" && /llvmpipe/.test(device.name))("where the device cannot evaluate the model's batched gradient (garch11's scan past llvmpipe's loop limit): the CPU's initial points, the init line saying why", async () => {
    const compiled = compileModel(garch, JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/garch-garch11/data.json", import.meta.url), "utf8")));
    const cpu = await pathfinderInits(compiled, 4, 0, 3, silent);
    const gpu = await pathfinderInits(compiled, 4, 0, 3, silent, { backend: "vulkan", dtype: "f64", device: device!.index });
    expect(gpu.perChain.map((q) => Array.from(q))).toEqual(cpu.perChain.map((q) => Array.from(q)));
    expect(gpu.notes.join("\n")).toMatch(/, on the CPU: the Vulkan device could not evaluate the model's batched gradient: .*loop/);
  });
});
