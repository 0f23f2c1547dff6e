// The GPU sampler meeting device faults on lavapipe: a model whose buffers exceed the device (its
// heap limited by the addon's test hook PPL_VULKAN_TEST_HEAP_LIMIT, as lavapipe's heap is host
// memory that a test cannot fill) and a device lost in the middle of sampling (the addon's
// testHooks.failCall). Each is a typed error naming what failed, and afterwards the same process
// samples on the CPU and, with a new manager, on the device again.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { compileModel, data, model, modelDensity, normal, sample } from "@ppl/ppl";
import { DeviceMemoryError, loadAddon, usableDevices, VulkanError } from "@ppl/vulkan";
import { prepareGpuNuts } from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const schools = compileModel(
  eightSchools,
  JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")),
);
const device = usableDevices()[0];
const load = loadAddon();
if (!load.ok) throw new Error(load.reason);
const hooks = load.addon.testHooks;
const OPTS = { chains: 2, warmup: 10, draws: 10, seed: 5, maxDepth: 6 } as const;

/** A normal model of N observations: its data buffer alone is 8N bytes in f64. */
const many = model({
  name: "many_observations",
  data: { N: data.int({ lower: 0 }), y: data.vector("N") },
  build(m, d) {
    const mu = m.param("mu", normal(0, 10));
    m.observe(d.y, normal(mu, 1));
  },
});

/** Draws of eight schools on the device with a fresh manager. */
async function gpuDraws(): Promise<number[][]> {
  const gpu = await prepareGpuNuts(schools, { chains: OPTS.chains, maxDepth: OPTS.maxDepth, dtype: "f64", iterationsPerSubmit: 2 });
  try {
    return sample(await modelDensity(schools), { ...OPTS, transitionRunner: gpu }).draws.map((d) => Array.from(d));
  } finally {
    gpu.dispose();
  }
}

afterEach(() => {
  hooks.clear();
  delete process.env.PPL_VULKAN_TEST_HEAP_LIMIT;
});

describe.runIf(device !== undefined)("device faults in the GPU sampler", () => {
  it("a model whose buffers exceed the device: a DeviceMemoryError naming the size and the limit; then the CPU and the device sample in the same process", async () => {
    const N = 200_000;
    const compiled = compileModel(many, { N, y: Array.from({ length: N }, (_, i) => (i % 10) / 10) });
    process.env.PPL_VULKAN_TEST_HEAP_LIMIT = String(1 << 20);
    const error = await prepareGpuNuts(compiled, { chains: 2, maxDepth: 6, dtype: "f64" }).then(() => undefined, (e: unknown) => e);
    delete process.env.PPL_VULKAN_TEST_HEAP_LIMIT;
    expect(error).toBeInstanceOf(DeviceMemoryError);
    const e = error as DeviceMemoryError;
    expect(e.limit).toBe(1 << 20);
    expect(e.requested + e.inUse).toBeGreaterThan(e.limit);
    expect(e.message).toContain(`${e.requested} bytes`);
    expect(e.message).toContain("which holds 1048576 bytes (1.0 MiB)");

    const cpu = sample(await modelDensity(compiled), { ...OPTS, draws: 20 });
    const mean = cpu.draws.flatMap((d) => Array.from(d)).reduce((a, b) => a + b, 0) / 40;
    expect(Math.abs(mean - 0.45)).toBeLessThan(0.05);
    expect((await gpuDraws()).flat().every(Number.isFinite)).toBe(true);
  });

  it("a device lost in the middle of sampling: a VulkanError naming vkWaitForFences, no crash; a new manager gives the draws of an undisturbed run", async () => {
    const clean = await gpuDraws();
    const gpu = await prepareGpuNuts(schools, { chains: OPTS.chains, maxDepth: OPTS.maxDepth, dtype: "f64", iterationsPerSubmit: 2 });
    let error: unknown;
    try {
      // Some submissions in: warmup has started on the device.
      hooks.failCall("vkWaitForFences", "VK_ERROR_DEVICE_LOST", 3);
      sample(await modelDensity(schools), { ...OPTS, transitionRunner: gpu });
    } catch (e) {
      error = e;
    } finally {
      gpu.dispose();
    }
    expect(error).toBeInstanceOf(VulkanError);
    expect([(error as VulkanError).call, (error as VulkanError).result]).toEqual(["vkWaitForFences", "VK_ERROR_DEVICE_LOST"]);
    expect(sample(await modelDensity(schools), OPTS).draws).toHaveLength(2);
    expect(await gpuDraws()).toEqual(clean);
  });
});
