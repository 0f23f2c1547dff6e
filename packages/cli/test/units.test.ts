// In-process tests of the CLI's pieces: backend choice, progress lines, option parsers, number
// formatting and the SVG helpers.
import { describe, expect, it } from "vitest";
import { thrownBy } from "@ppl/tensor/testing";
import { InvalidArgumentError } from "commander";
import type { DeviceInfo, DeviceListing } from "@ppl/vulkan";
import { readFileSync } from "node:fs";
import { compileModel } from "@ppl/ppl";
import { chooseBackend, layerMethodChoice, precisionHint } from "../src/choose-backend.ts";
import { CliError, ExitCode } from "../src/exit-codes.ts";
import { integer, nameList, nonNegative, openInterval } from "../src/options.ts";
import { duration, Progress, progressLines } from "../src/progress.ts";
import { formatStat } from "../src/summary-text.ts";
import { formatDevices } from "../src/commands/devices.ts";
import { pendingLine } from "../src/commands/sample.ts";
import { Scale, thinIndices, histogram } from "../src/report/svg.ts";

function device(index: number, type: DeviceInfo["type"], rejected: string | null = null): DeviceInfo {
  return {
    index, name: `dev${index}`, type, apiVersion: "1.3.0", driver: "test", driverInfo: "", vendorId: 0, deviceId: 0,
    memoryHeaps: [{ size: 2 ** 33, deviceLocal: true }], hostVisibleDeviceLocal: false,
    limits: {
      maxComputeWorkGroupSize: [1024, 1024, 64], maxComputeWorkGroupInvocations: 1024, maxComputeWorkGroupCount: [65535, 65535, 65535],
      maxComputeSharedMemorySize: 49152, maxStorageBufferRange: 2 ** 31, maxPushConstantsSize: 256, maxPerStageDescriptorStorageBuffers: 32,
      maxBufferSize: 2 ** 34, minStorageBufferOffsetAlignment: 64, timestampPeriod: 1,
    },
    subgroup: { size: 32, operations: ["basic"], inCompute: true },
    features: {
      shaderFloat64: true, shaderInt64: true, shaderInt16: false,
      atomicFloat: { extension: false, bufferFloat32Atomics: false, bufferFloat32AtomicAdd: false, bufferFloat64Atomics: false, bufferFloat64AtomicAdd: false, sharedFloat32AtomicAdd: false, sharedFloat64AtomicAdd: false },
    },
    rejected,
  };
}

const NONE: DeviceListing = { devices: [], reason: "no device: libvulkan.so.1 not found" };
const TWO: DeviceListing = { devices: [device(0, "cpu"), device(1, "discrete")], reason: null };

/** The CliError `f` throws. */
const thrown = (f: () => unknown): CliError => thrownBy(f, CliError);

describe("chooseBackend", () => {
  it("auto without a device: the CPU, with the listing's reason", () => {
    const c = chooseBackend({ backend: "auto" }, NONE);
    expect(c).toMatchObject({ backend: "cpu", dtype: "f64", device: null });
    expect(c.note).toBe("backend: cpu (f64) — no Vulkan device: libvulkan.so.1 not found");
  });

  it("auto with a GPU: the best GPU, in f32 by default", () => {
    const c = chooseBackend({ backend: "auto" }, TWO);
    expect(c).toMatchObject({ backend: "vulkan", dtype: "f32", device: 1 });
    expect(c.note).toBe("backend: vulkan (f32) on device 1 'dev1' (discrete GPU)");
  });

  it("auto with only a CPU implementation of Vulkan: the CPU, saying why; a dense metric stays on the GPU", () => {
    const cpuOnly = chooseBackend({ backend: "auto" }, { devices: [device(0, "cpu")], reason: null });
    expect(cpuOnly).toMatchObject({ backend: "cpu", dtype: "f64", device: null });
    expect(cpuOnly.note).toMatch(/Vulkan device 0 'dev0' is a CPU implementation; the CPU backend is faster/);
    expect(chooseBackend({ backend: "auto", metric: "dense" }, TWO)).toMatchObject({ backend: "vulkan", device: 1 });
  });

  it("auto with only rejected devices says why each was rejected", () => {
    const c = chooseBackend({ backend: "auto" }, { devices: [device(0, "cpu", "no compute queue")], reason: null });
    expect(c.note).toMatch(/no usable Vulkan device \(device 0 'dev0': no compute queue\)/);
  });

  it("vulkan: the requested device, or exit 4 with the reason", () => {
    const none = thrown(() => chooseBackend({ backend: "vulkan" }, NONE));
    expect(none.exitCode).toBe(ExitCode.device);
    expect(none.message).toBe("--backend vulkan: no Vulkan device: libvulkan.so.1 not found; use --backend cpu");
    expect(chooseBackend({ backend: "vulkan", device: 0 }, TWO)).toMatchObject({ backend: "vulkan", dtype: "f32", device: 0 });
    expect(chooseBackend({ backend: "vulkan" }, TWO)).toMatchObject({ backend: "vulkan", device: 1 });
    expect(chooseBackend({ backend: "vulkan", metric: "dense" }, TWO)).toMatchObject({ backend: "vulkan", device: 1 });
    const missing = thrown(() => chooseBackend({ backend: "vulkan", device: 7 }, TWO));
    expect(missing.exitCode).toBe(ExitCode.device);
    expect(missing.message).toMatch(/there is no Vulkan device 7 \(devices: 0 'dev0', 1 'dev1'\)/);
  });

  it("auto may move a GPU run to the CPU only when it took the GPU on its own", () => {
    expect(chooseBackend({ backend: "auto" }, TWO).cpuFallback).toEqual({ dtype: "f64" });
    expect(chooseBackend({ backend: "auto", dtype: "f32" }, TWO).cpuFallback).toEqual({ dtype: "f32" });
    expect(chooseBackend({ backend: "auto", gpuShape: "auto" }, TWO).cpuFallback).toEqual({ dtype: "f64" });
    // A pinned device, shape or 16-bit data asks for the GPU; --backend vulkan and cpu decide nothing.
    expect(chooseBackend({ backend: "auto", device: 1 }, TWO).cpuFallback).toBeUndefined();
    expect(chooseBackend({ backend: "auto", gpuShape: "device" }, TWO).cpuFallback).toBeUndefined();
    expect(chooseBackend({ backend: "vulkan" }, TWO).cpuFallback).toBeUndefined();
    expect(chooseBackend({ backend: "cpu" }, TWO).cpuFallback).toBeUndefined();
    expect(chooseBackend({ backend: "auto" }, { devices: [device(0, "cpu")], reason: null }).cpuFallback).toBeUndefined();
  });

  it("a method other than NUTS takes the GPU where NUTS would, from the start, on one device", () => {
    // auto takes the discrete GPU as for NUTS, without the measured start on the CPU.
    const auto = layerMethodChoice(chooseBackend({ backend: "auto" }, TWO), "chees");
    expect(auto).toMatchObject({ backend: "vulkan", dtype: "f32", device: 1 });
    expect(auto.cpuFallback).toBeUndefined();
    expect(auto.note).toMatch(/^backend: vulkan \(f32\) on device 1 'dev1' \(discrete GPU\); --algorithm chees: its transitions on the host, each round of all chains' gradients one batched evaluation on the device$/);
    // Where auto leaves the GPU (lavapipe alone, or none), the CPU backend, its choice untouched.
    const cpuOnly: DeviceListing = { devices: [device(0, "cpu")], reason: null };
    expect(layerMethodChoice(chooseBackend({ backend: "auto" }, cpuOnly), "meads")).toEqual(chooseBackend({ backend: "auto" }, cpuOnly));
    expect(layerMethodChoice(chooseBackend({ backend: "vulkan", device: 0 }, TWO), "hmc")).toMatchObject({ backend: "vulkan", device: 0 });
    const several = thrown(() => layerMethodChoice(chooseBackend({ backend: "vulkan", device: [0, 1] }, TWO), "chees"));
    expect(several.exitCode).toBe(ExitCode.usage);
    expect(several.message).toBe("--algorithm chees evaluates its chains' gradients on one device; give --device one index (not 0,1)");
  });

  it("says where a run that started on the CPU went, and what it measured", () => {
    const d = { reason: "measured" as const, iteration: 412, runnerSecondsPerGradient: 3.1e-7, cpuSecondsPerGradient: 5.13e-6, threads: 4, moved: true, seconds: 1.8 };
    expect(pendingLine(d, "f64")).toBe(
      "backend: moved to vulkan after iteration 412: the CPU backend (f64) sampled iterations 0–411 while the GPU's kernel was built; " +
        "a gradient of one chain took 0.310 µs on the GPU (a trial from iteration 412) and 5.13 µs on the CPU (4 threads)",
    );
    expect(pendingLine({ ...d, threads: 1, moved: false, runnerSecondsPerGradient: 4.82e-5 }, "f32")).toBe(
      "backend: kept on cpu (f32): a gradient of one chain took 48.2 µs on the GPU (a trial from iteration 412) and 5.13 µs on the CPU (1 thread); --backend vulkan keeps a run on the GPU",
    );
    expect(pendingLine({ ...d, reason: "failed", moved: false, error: "out of device memory" }, "f64")).toBe(
      "backend: cpu (f64): the GPU's sampler could not be prepared (out of device memory); the run stayed on the CPU backend (--backend vulkan reports such an error)",
    );
    expect(pendingLine({ ...d, reason: "ended", moved: false }, "f64")).toBe("backend: cpu (f64): the run ended before the GPU's kernel was built (--backend vulkan waits for it)");
    expect(pendingLine({ ...d, reason: "short", moved: false }, "f64")).toBe(
      "backend: cpu (f64): the run was too short to gain from the GPU, whose kernel was not built (--backend vulkan uses the GPU anyway)",
    );
  });

  it("cpu: no device lookup needed; --device with it is a usage error", () => {
    expect(chooseBackend({ backend: "cpu" }, NONE).note).toBe("backend: cpu (f64), as requested");
    expect(thrown(() => chooseBackend({ backend: "cpu", device: 0 }, TWO)).exitCode).toBe(ExitCode.usage);
  });
});

describe("progress", () => {
  it("one line per chain with the phase, then elapsed time and ETA", () => {
    const lines = progressLines([50, 150], 100, 100, 10);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^chain 1\s+warmup\s+\[#####\.+\]\s+50\/200\s+25%$/);
    expect(lines[1]).toMatch(/^chain 2\s+sampling\s+\[#+\.+\]\s+150\/200\s+75%$/);
    expect(lines[2]).toBe("elapsed 10.0s, ETA 10.0s");
  });

  it("folds many chains into one line", () => {
    const lines = progressLines(new Array(100).fill(10), 10, 10, 1);
    expect(lines).toHaveLength(9);
    expect(lines[7]).toMatch(/^chains 8-100 /);
  });

  it("writes only to a terminal, and only when enabled", () => {
    const written: string[] = [];
    const tty = { isTTY: true, write: (s: string) => written.push(s) };
    new Progress({ isTTY: false, write: (s: string) => written.push(s) }, 10, 10, 2, true).update(0, 0);
    new Progress(tty, 10, 10, 2, false).update(0, 0);
    expect(written).toEqual([]);
    const p = new Progress(tty, 10, 10, 2, true);
    p.update(0, 0);
    expect(written.join("")).toMatch(/chain 1\s+warmup/);
    p.finish();
    expect(written[written.length - 1]).toMatch(/^\x1b\[3A/);
  });

  it("durations", () => {
    expect(duration(4.21)).toBe("4.2s");
    expect(duration(187)).toBe("3m07s");
    expect(duration(3720)).toBe("1h02m");
  });
});

describe("option parsers", () => {
  it("accept what is in range and refuse the rest with the range", () => {
    expect(integer(1)("4")).toBe(4);
    expect(() => integer(1)("0")).toThrow(InvalidArgumentError);
    expect(() => integer(1)("1.5")).toThrow(/integer ≥ 1/);
    expect(() => integer(1, 30)("31")).toThrow(/from 1 to 30/);
    expect(() => integer(0)("")).toThrow(InvalidArgumentError);
    expect(openInterval(0, 1)("0.95")).toBe(0.95);
    for (const bad of ["0", "1", "1.5", "x", ""]) expect(() => openInterval(0, 1)(bad)).toThrow(/strictly between 0 and 1/);
    expect(nonNegative("0")).toBe(0);
    expect(() => nonNegative("inf")).toThrow(InvalidArgumentError);
    expect(nameList("mu, tau,theta[1]")).toEqual(["mu", "tau", "theta[1]"]);
    expect(() => nameList(" , ")).toThrow(InvalidArgumentError);
  });
});

describe("formatting", () => {
  it("statistics to four significant digits, ESS whole, R-hat to three decimals, NA for non-finite", () => {
    expect(formatStat("mean", 3.14159)).toBe("3.142");
    expect(formatStat("sd", 0.000123456)).toBe("1.235e-4");
    expect(formatStat("mean", 1234567)).toBe("1.235e+6");
    expect(formatStat("ess_bulk", 812.6)).toBe("813");
    expect(formatStat("rhat", 1.00049)).toBe("1.000");
    expect(formatStat("rhat", NaN)).toBe("NA");
  });

  it("devices: a line saying there are none and why, or a block per device", () => {
    expect(formatDevices(NONE)).toBe("No Vulkan devices: libvulkan.so.1 not found\n");
    const text = formatDevices(TWO);
    expect(text).toMatch(/^device 0: dev0 \(cpu\)\n/);
    expect(text).toMatch(/device 1: dev1 \(discrete\)/);
    expect(text).toMatch(/memory:\s+8\.0 GiB device-local/);
    expect(text).toMatch(/f64 in shaders:\s+yes/);
    expect(text.endsWith("\n")).toBe(true);
  });
});

describe("svg helpers", () => {
  it("scales map the domain and give round ticks", () => {
    const s = new Scale(0, 10, 100, 200);
    expect(s.at(5)).toBe(150);
    expect(s.ticks(5)).toEqual([0, 2, 4, 6, 8, 10]);
    const flat = new Scale(3, 3, 0, 1);
    expect(Number.isFinite(flat.at(3))).toBe(true);
  });

  it("thinning keeps the ends and at most the number asked for", () => {
    expect(thinIndices(5, 10)).toEqual([0, 1, 2, 3, 4]);
    const t = thinIndices(4000, 250);
    expect(t).toHaveLength(250);
    expect(t[0]).toBe(0);
    expect(t[249]).toBe(3999);
  });

  it("histograms count every finite value once", () => {
    expect(histogram([0, 0.5, 1, 2, NaN], 0, 2, 2)).toEqual([2, 2]);
  });
});

describe("the f32 hint for models that factorise a matrix", () => {
  const load = (name: string) => JSON.parse(readFileSync(new URL(`../../../../shared/posteriordb/${name}/data.json`, import.meta.url), "utf8"));
  it("names the matrix for gp_pois_regr in f32, and says nothing in f64 or for a model without one", async () => {
    const { default: gp } = await import("../../../examples/posteriordb/gp_pois_regr-gp_pois_regr.ts");
    const { default: es } = await import("../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts");
    const gpModel = compileModel(gp, load("gp_pois_regr-gp_pois_regr"));
    expect(await precisionHint(gpModel, "f32")).toMatch(/factorises a matrix of order 11 in f32.*--dtype f64/);
    expect(await precisionHint(gpModel, "f64")).toBeUndefined();
    expect(await precisionHint(compileModel(es, load("eight_schools-eight_schools_noncentered")), "f32")).toBeUndefined();
  });
});
