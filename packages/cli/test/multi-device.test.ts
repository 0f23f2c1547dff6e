// `ppl sample --device 0,1` / `--device all`: the chains split over several devices, one manager,
// program and buffers each. On lavapipe the one physical device is opened twice (`--device 0,0`):
// in f64 the draws equal a one-device run's chain for chain.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { thrownBy } from "@ppl/tensor/testing";
import { InvalidArgumentError } from "commander";
import { chainGroupSizes } from "@ppl/ppl/runner";
import { usableDevices, type DeviceInfo, type DeviceListing } from "@ppl/vulkan";
import { chooseBackend, devicesForAll } from "../src/choose-backend.ts";
import { deviceSelection } from "../src/device-option.ts";
import { CliError, ExitCode } from "../src/exit-codes.ts";
import { formatDevices } from "../src/commands/devices.ts";
import { readCsv, runCli, tempDir } from "./helpers.ts";

const RUN = ["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--backend", "vulkan", "--dtype", "f64", "--warmup", "100", "--draws", "50", "--seed", "5", "--quiet"];

function rows(path: string): string[] {
  return readFileSync(path, "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

const f64Device = usableDevices().find((d) => d.features.shaderFloat64);

describe.runIf(f64Device !== undefined)("ppl sample --device with several managers", () => {
  const index = String(f64Device?.index ?? 0);

  for (const [shape, chains, devices] of [["device", 3, [index, index]], ["thread", 3, [index, index, index]]] as const) {
    it(`--gpu-shape ${shape}, ${chains} chains over --device ${devices.join(",")} write the draws of --device ${index}, chain for chain`, async () => {
      const root = tempDir("ppl-devices-");
      const one = join(root, "one"), split = join(root, "split");
      const args = [...RUN, "--gpu-shape", shape, "--chains", String(chains)];
      const [r1, r2] = await Promise.all([
        runCli([...args, "--device", index, "--output", one]),
        runCli([...args, "--device", devices.join(","), "--output", split]),
      ]);
      expect(r1.code, r1.stderr).toBe(0);
      expect(r2.code, r2.stderr).toBe(0);
      for (let c = 1; c <= chains; c++) expect(rows(join(split, `chain-${c}.csv`))).toEqual(rows(join(one, `chain-${c}.csv`)));
      expect(readCsv(join(split, "chain-1.csv")).config["device"]).toBe(devices.join(","));
      expect(readFileSync(join(split, "summary.json"), "utf8")).toBe(readFileSync(join(one, "summary.json"), "utf8"));
    }, 120_000);
  }

  it("--first-chain on the GPU: chains 2–3 alone write chain-3.csv and chain-4.csv of a 4-chain run", async () => {
    const root = tempDir("ppl-devices-");
    const all = join(root, "all"), part = join(root, "part");
    const [r1, r2] = await Promise.all([
      runCli([...RUN, "--chains", "4", "--device", index, "--output", all]),
      runCli([...RUN, "--chains", "2", "--first-chain", "2", "--device", index, "--output", part]),
    ]);
    expect(r1.code, r1.stderr).toBe(0);
    expect(r2.code, r2.stderr).toBe(0);
    for (const c of [3, 4]) expect(rows(join(part, `chain-${c}.csv`))).toEqual(rows(join(all, `chain-${c}.csv`)));
  }, 120_000);

  it("says how the chains were split", async () => {
    const out = join(tempDir("ppl-devices-"), "o");
    const r = await runCli([...RUN.filter((a) => a !== "--quiet"), "--chains", "3", "--device", `${index},${index}`, "--draws", "5", "--warmup", "5", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^backend: vulkan \\(f64\\) on devices ${index}, ${index} \\('.*'\\), the chains split over them$`, "m"));
    expect(r.stderr).toMatch(new RegExp(`^chains split over 2 devices: 2 on device ${index}, 1 on device ${index} \\(one after another within each block of iterations\\)$`, "m"));
  });
});

function device(index: number, type: DeviceInfo["type"], f64: boolean): DeviceInfo {
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
      shaderFloat64: f64, shaderInt64: true, shaderInt16: false,
      atomicFloat: { extension: false, bufferFloat32Atomics: false, bufferFloat32AtomicAdd: false, bufferFloat64Atomics: false, bufferFloat64AtomicAdd: false, sharedFloat32AtomicAdd: false, sharedFloat64AtomicAdd: false },
    },
    rejected: null,
  };
}

// Two GPUs, one without f64, and lavapipe.
const HOST: DeviceListing = { devices: [device(0, "discrete", true), device(1, "discrete", false), device(2, "cpu", true)], reason: null };

/** The CliError `f` throws. */
const thrown = (f: () => unknown): CliError => thrownBy(f, CliError);

describe("device selection", () => {
  it("--device parses an index, a list (repeats allowed) and all; anything else is a usage error", () => {
    expect(deviceSelection("1")).toBe(1);
    expect(deviceSelection("0,1")).toEqual([0, 1]);
    expect(deviceSelection(" 0, 0 ")).toEqual([0, 0]);
    expect(deviceSelection("all")).toBe("all");
    for (const bad of ["", "-1", "0,", "a", "1.5", "0;1"]) expect(() => deviceSelection(bad)).toThrow(InvalidArgumentError);
  });

  it("--device all takes the devices with the features the run needs, with a note for each one skipped", () => {
    expect(devicesForAll(HOST, "f32", "vulkan").devices.map((d) => d.index)).toEqual([0, 1, 2]);
    const f64 = devicesForAll(HOST, "f64", "auto");
    expect(f64.devices.map((d) => d.index)).toEqual([0]);
    expect(f64.skipped).toEqual([
      "note: --device all skips device 1 'dev1': it has no shaderFloat64, which --dtype f64 needs",
      "note: --device all skips device 2 'dev2': a CPU implementation of Vulkan (--backend vulkan takes it)",
    ]);
    const c = chooseBackend({ backend: "auto", device: "all" }, HOST);
    expect(c).toMatchObject({ backend: "vulkan", dtype: "f32", device: 0, devices: [0, 1] });
    expect(c.note.split("\n")).toEqual([
      "note: --device all skips device 2 'dev2': a CPU implementation of Vulkan (--backend vulkan takes it)",
      "backend: vulkan (f32) on devices 0, 1 ('dev0', 'dev1'), the chains split over them",
    ]);
    expect(chooseBackend({ backend: "vulkan", device: [2, 2], dtype: "f64" }, HOST)).toMatchObject({ backend: "vulkan", devices: [2, 2] });
    expect(formatDevices(HOST)).toMatch(/^--device all, --backend auto --dtype f64: device 0 \(skips device 1 'dev1': it has no shaderFloat64, which --dtype f64 needs; device 2 .*\)$/m);
  });

  it("refuses a listed device that cannot run the request, and a device list on the CPU backend", () => {
    const e = thrown(() => chooseBackend({ backend: "vulkan", device: [0, 1], dtype: "f64" }, HOST));
    expect(e.exitCode).toBe(ExitCode.device);
    expect(e.message).toBe("Vulkan device 1 'dev1' has no shaderFloat64; use --dtype f32, or leave it out of --device");
    expect(thrown(() => chooseBackend({ backend: "vulkan", device: [0, 7] }, HOST)).message).toMatch(/^--backend vulkan: there is no Vulkan device 7 .*; use --backend cpu$/);
    expect(thrown(() => chooseBackend({ backend: "cpu", device: "all" }, HOST)).exitCode).toBe(ExitCode.usage);
    // No device qualifies: auto falls back to the CPU, vulkan is a device error.
    const lavapipe: DeviceListing = { devices: [device(0, "cpu", true)], reason: null };
    expect(chooseBackend({ backend: "auto", device: "all" }, lavapipe)).toMatchObject({ backend: "cpu", dtype: "f64" });
    expect(thrown(() => chooseBackend({ backend: "vulkan", device: "all", dtype: "f64" }, { devices: [device(0, "discrete", false)], reason: null })).exitCode).toBe(ExitCode.device);
  });

  it("splits chains into near-equal consecutive groups, leaving out empty ones", () => {
    expect(chainGroupSizes(4, 2)).toEqual([2, 2]);
    expect(chainGroupSizes(5, 2)).toEqual([3, 2]);
    expect(chainGroupSizes(2, 4)).toEqual([1, 1]);
  });
});
