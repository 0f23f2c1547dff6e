// The placement policy as the library's call: placeRun over a device listing (what `ppl sample`'s
// flags and sample(model, data, { backend }) both ask), with messages that name the library's
// options; and sample(model, data, { backend }) placed on this machine's devices (lavapipe in CI,
// which `auto` leaves to the CPU backend).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { thrownBy } from "@ppl/tensor/testing";
import { compileModel, data as field, model, normal, PlacementError, sample, type Fit } from "@ppl/ppl";
import type { PlacedPlan } from "@ppl/ppl/runner";
import { usableDevices, type DeviceInfo, type DeviceListing } from "@ppl/vulkan";
import { batchedRoundsGain, deviceGroups, modelWork, placeRun } from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

function device(index: number, type: DeviceInfo["type"], f64 = true): DeviceInfo {
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

// lavapipe, a discrete GPU, and a second discrete GPU without f64.
const HOST: DeviceListing = { devices: [device(0, "cpu"), device(1, "discrete"), device(2, "discrete", false)], reason: null };
const layout = { chains: 5, maxDepth: 8, metric: "diag" } as const;
const thrown = (f: () => unknown): PlacementError => thrownBy(f, PlacementError);

describe("placeRun", () => {
  it("auto takes the discrete GPU on its own: the run's layout, f32 on the device, a start on the CPU in f64, and why", () => {
    const plan = placeRun({ ...layout, listing: HOST });
    expect(plan).toEqual({
      ...layout, dtype: "f32", device: 1, backend: "vulkan", cpuFallback: { dtype: "f64" }, note: "backend: vulkan (f32) on device 1 'dev1' (discrete GPU)",
    } satisfies PlacedPlan);
    // A device, a shape or 16-bit data asked for starts on the GPU.
    expect(placeRun({ ...layout, listing: HOST, device: 1 }).cpuFallback).toBeUndefined();
    expect(placeRun({ ...layout, listing: HOST, gpuShape: "thread" })).toMatchObject({ shape: "thread", backend: "vulkan" });
    expect(placeRun({ ...layout, listing: HOST, gpuShape: "thread" }).cpuFallback).toBeUndefined();
  });

  it("auto leaves a CPU implementation of Vulkan to the CPU backend, and backend cpu needs no listing", () => {
    const plan = placeRun({ ...layout, listing: { devices: [device(0, "cpu")], reason: null } });
    expect(plan).toMatchObject({ backend: "cpu", dtype: "f64" });
    expect(plan.device).toBeUndefined();
    expect(plan.note).toBe(`backend: cpu (f64) — Vulkan device 0 'dev0' is a CPU implementation; the CPU backend is faster (use backend: "vulkan" to run on it anyway)`);
    expect(placeRun({ ...layout, backend: "cpu", dtype: "f32" })).toMatchObject({ backend: "cpu", dtype: "f32", note: "backend: cpu (f32), as requested" });
  });

  it("several devices: the plan owns each one's group of chains", () => {
    const plan = placeRun({ ...layout, listing: HOST, backend: "vulkan", device: [1, 0] });
    expect(plan).toMatchObject({ backend: "vulkan", device: 1, devices: [1, 0], groups: [{ device: 1, chains: 3 }, { device: 0, chains: 2 }] });
    expect(deviceGroups(2, [1, 0, 2])).toEqual([{ device: 1, chains: 1 }, { device: 0, chains: 1 }]);
    // all under auto: the GPUs with what the float type needs, the rest noted.
    const all = placeRun({ ...layout, listing: HOST, device: "all", dtype: "f64" });
    expect(all.groups).toBeUndefined();
    expect(all.note).toBe([
      `note: device: "all" skips device 0 'dev0': a CPU implementation of Vulkan (backend: "vulkan" takes it)`,
      `note: device: "all" skips device 2 'dev2': it has no shaderFloat64, which dtype: "f64" needs`,
      "backend: vulkan (f64) on devices 1 ('dev1'), the chains split over them",
    ].join("\n"));
  });

  it("a method other than NUTS: its transitions on the host over one device's batched gradient, from the start", () => {
    const plan = placeRun({ ...layout, listing: HOST, method: "chees" });
    expect(plan).toMatchObject({ backend: "vulkan", device: 1, transitions: "host" });
    expect(plan.cpuFallback).toBeUndefined();
    expect(plan.note).toMatch(/; method: "chees": its transitions on the host/);
    expect(placeRun({ ...layout, listing: { devices: [], reason: null }, method: "chees" }).transitions).toBeUndefined();
  });

  it("a method other than NUTS with its model: auto keeps the GPU only where a round of every chain's gradient gains from it", () => {
    // 5 chains × 11 elements: the CPU, saying why; 5 × 70,001 reaches 2^18 element-points.
    const tiny = placeRun({ ...layout, listing: HOST, method: "chees", model: TINY.model });
    expect(tiny).toMatchObject({ backend: "cpu", dtype: "f64" });
    expect(tiny.transitions).toBeUndefined();
    expect(tiny.note).toBe(`backend: cpu (f64) — rounds of 5 chains × 11 data and parameter elements are too small to gain from Vulkan device 1 'dev1' (backend: "vulkan" runs on it anyway)`);
    expect(placeRun({ ...layout, chains: 30_000, listing: HOST, method: "chees", model: TINY.model })).toMatchObject({ backend: "vulkan", device: 1, transitions: "host" });
    const large = placeRun({ ...layout, listing: HOST, method: "meads", model: LARGE.model });
    expect(large).toMatchObject({ backend: "vulkan", device: 1, dtype: "f32", transitions: "host" });
    expect(large.cpuFallback).toBeUndefined();
    // A GPU asked for is taken whatever the size; NUTS is placed as before (its start on the CPU measures).
    expect(placeRun({ ...layout, listing: HOST, backend: "vulkan", method: "chees", model: TINY.model })).toMatchObject({ backend: "vulkan", transitions: "host" });
    expect(placeRun({ ...layout, listing: HOST, device: 1, method: "chees", model: TINY.model })).toMatchObject({ backend: "vulkan", device: 1 });
    expect(placeRun({ ...layout, listing: HOST, model: TINY.model })).toMatchObject({ backend: "vulkan", cpuFallback: { dtype: "f64" } });
  });

  it("refuses what it cannot honour, kind and option named (as the library's options, or as ppl sample's flags)", () => {
    const several = thrown(() => placeRun({ ...layout, listing: HOST, backend: "vulkan", device: [0, 1], method: "meads" }));
    expect(several.kind).toBe("usage");
    expect(several.message).toBe(`method: "meads" evaluates its chains' gradients on one device; give device one index (not 0,1)`);
    const noF64 = thrown(() => placeRun({ ...layout, listing: HOST, backend: "vulkan", device: 2, dtype: "f64" }));
    expect(noF64.kind).toBe("device");
    expect(noF64.message).toBe(`Vulkan device 2 'dev2' has no shaderFloat64; use dtype: "f32"`);
    expect(thrown(() => placeRun({ ...layout, backend: "cpu", device: 0 })).message).toBe(`device selects a Vulkan device; it has no meaning with backend: "cpu"`);
    const shape = thrown(() => placeRun({ ...layout, listing: HOST, method: "hmc", gpuShape: "device", spelling: "flags" }));
    expect(shape.message).toBe("--gpu-shape lays out the GPU's NUTS kernel; --algorithm hmc runs its transitions on the host over the GPU's batched gradient: drop --gpu-shape");
    expect(thrown(() => placeRun({ ...layout, listing: { devices: [], reason: "no device: none here" }, backend: "vulkan", spelling: "flags" })).message).toBe(
      "--backend vulkan: no Vulkan device: none here; use --backend cpu",
    );
  });
});

// A normal mean with N observations: one point's work is N + 1 elements (y and mu).
const normalMean = model({
  name: "normal_mean",
  data: { N: field.int({ lower: 1 }), y: field.vector("N") },
  build(m, d) {
    m.observe(d.y, normal(m.param("mu", normal(0, 5)), 1));
  },
});
const normalOf = (n: number) => compileModel(normalMean, { N: n, y: Array.from({ length: n }, (_, i) => Math.sin(i)) });
// Pathfinder's rounds with 4 paths and 25 ELBO draws each: 4 × (N + 1) element-points at least.
const TINY = { sizes: [4, 100], model: normalOf(10) };
const LARGE = { sizes: [4, 100], model: normalOf(70_000) };

describe("placeRun for an approximation's rounds (batched)", () => {
  const approx = { chains: 100, maxDepth: 10, metric: "diag" } as const;

  it("auto keeps tiny rounds on the CPU and takes the GPU where every round reaches 2^18 element-points, in f64, transitions on the host", () => {
    expect(modelWork(TINY.model)).toBe(11);
    expect(modelWork(LARGE.model)).toBe(70_001);
    expect([batchedRoundsGain(TINY, "discrete"), batchedRoundsGain(LARGE, "discrete"), batchedRoundsGain(LARGE, "cpu")]).toEqual([false, true, false]);
    const tiny = placeRun({ ...approx, listing: HOST, batched: TINY });
    expect(tiny).toMatchObject({ backend: "cpu", dtype: "f64", chains: 100 });
    expect(tiny.transitions).toBeUndefined();
    expect(tiny.note).toBe(`backend: cpu (f64) — rounds of 4 points × 11 data and parameter elements are too small to gain from Vulkan device 1 'dev1' (backend: "vulkan" runs on it anyway)`);
    const large = placeRun({ ...approx, listing: HOST, batched: LARGE });
    expect(large).toEqual({
      ...approx, dtype: "f64", device: 1, transitions: "host", backend: "vulkan",
      note: "backend: vulkan (f64) on device 1 'dev1' (discrete GPU); each round of 4 or 100 points one batched evaluation on the device",
    } satisfies PlacedPlan);
  });

  it("decides from the listing alone: lavapipe and a GPU without f64 leave auto on the CPU; a device or backend vulkan asked for is taken", () => {
    const lavapipeOnly = placeRun({ ...approx, listing: { devices: [device(0, "cpu")], reason: null }, batched: LARGE });
    expect(lavapipeOnly).toMatchObject({ backend: "cpu", dtype: "f64", note: expect.stringContaining("is a CPU implementation; the CPU backend is faster") });
    const noF64: DeviceListing = { devices: [device(0, "discrete", false)], reason: null };
    expect(placeRun({ ...approx, listing: noF64, batched: LARGE }).note).toBe(`backend: cpu (f64) — Vulkan device 0 'dev0' has no shaderFloat64 (dtype: "f32" runs on it in f32)`);
    expect(placeRun({ ...approx, listing: noF64, batched: LARGE, dtype: "f32" })).toMatchObject({ backend: "vulkan", dtype: "f32", device: 0 });
    // A device asked for under auto starts there, as a sampler's run does, whatever the rounds' size.
    expect(placeRun({ ...approx, listing: HOST, batched: TINY, device: 1 })).toMatchObject({ backend: "vulkan", device: 1, dtype: "f64" });
    expect(placeRun({ ...approx, listing: HOST, batched: TINY, backend: "vulkan", device: 0 })).toMatchObject({ backend: "vulkan", device: 0, transitions: "host" });
    expect(placeRun({ ...approx, batched: TINY, backend: "cpu" })).toMatchObject({ backend: "cpu", dtype: "f64", note: "backend: cpu (f64), as requested" });
  });

  it("refuses several devices, a GPU shape, a device with the CPU and f64 on a device without it, naming the flag", () => {
    const flags = { ...approx, listing: HOST, batched: TINY, spelling: "flags" } as const;
    expect(thrown(() => placeRun({ ...flags, device: [1, 1] }))).toMatchObject({ kind: "usage", message: "an approximation evaluates its batches on one device; give --device one index" });
    expect(thrown(() => placeRun({ ...flags, gpuShape: "thread" })).kind).toBe("usage");
    expect(thrown(() => placeRun({ ...flags, backend: "cpu", device: 1 })).message).toBe("--device selects a Vulkan device; it has no meaning with --backend cpu");
    expect(thrown(() => placeRun({ ...flags, backend: "vulkan", device: 2 }))).toMatchObject({ kind: "device", message: "Vulkan device 2 'dev2' has no shaderFloat64; use --dtype f32" });
  });
});

const data = JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")) as Record<string, unknown>;
const run = { chains: 2, warmup: 60, draws: 20, seed: 5, maxDepth: 6 } as const;
const lavapipe = usableDevices().find((d) => d.type === "cpu");

describe("sample(model, data, { backend })", () => {
  it("auto places the run as ppl sample does: lavapipe left to the CPU backend, the draws those of the CPU run", async () => {
    const plans: PlacedPlan[] = [];
    const placed = await sample(eightSchools, data, { ...run, backend: "auto", onPlaced: (p) => plans.push(p) });
    const cpu = await sample(eightSchools, data, run);
    const expected = placeRun({ backend: "auto", chains: run.chains, maxDepth: run.maxDepth, metric: "diag" });
    expect(plans).toEqual([expected]);
    if (expected.backend === "cpu") expect(draws(placed)).toEqual(draws(cpu));
  });

  it("cpu in f32: the CPU backend's f32 density, on the registered placement", async () => {
    const plans: PlacedPlan[] = [];
    const fit = await sample(eightSchools, data, { ...run, backend: "cpu", dtype: "f32", onPlaced: (p) => plans.push(p) });
    expect(plans[0]).toMatchObject({ backend: "cpu", dtype: "f32" });
    expect(draws(fit).every(Number.isFinite)).toBe(true);
    expect(draws(fit)).not.toEqual(draws(await sample(eightSchools, data, run)));
  });

  it.runIf(lavapipe !== undefined)("vulkan takes the device that ppl sample --backend vulkan takes, its transitions there", async () => {
    const plans: PlacedPlan[] = [];
    const fit = await sample(eightSchools, data, { ...run, backend: "vulkan", onPlaced: (p) => plans.push(p) });
    expect(plans[0]).toMatchObject({ backend: "vulkan", dtype: "f32", chains: run.chains });
    expect(plans[0]!.cpuFallback).toBeUndefined();
    expect(fit.draws("mu").map((d) => d.length)).toEqual([run.draws, run.draws]);
    expect(draws(fit).every(Number.isFinite)).toBe(true);
  });
});

// Every chain's draws of every variable, in one array.
function draws(fit: Fit): number[] {
  return fit.names.flatMap((name) => fit.draws(name).flatMap((d) => [...d]));
}
