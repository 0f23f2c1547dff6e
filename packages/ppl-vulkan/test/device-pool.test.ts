// Runs in one process share an open device (device-pool.ts): a run after another finds the
// device the first left open instead of opening its own, runs at the same time each hold one,
// a lost device is closed rather than handed on, and an idle device closes after IDLE_DEVICE_MS.
// Counted with the addon's testHooks.live() (device contexts and buffers alive), on lavapipe.
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { compileModel, modelDensity, sample } from "@ppl/ppl";
import { loadAddon, usableDevices, VulkanError } from "@ppl/vulkan";
import { closeIdleDevices, IDLE_DEVICE_MS, prepareGpuNuts } from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const schools = compileModel(
  eightSchools,
  JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")),
);
const load = loadAddon();
const OPTS = { chains: 2, warmup: 6, draws: 6, seed: 11, maxDepth: 5 } as const;
const live = () => (load.ok ? load.addon.testHooks.live() : { contexts: -1, buffers: -1 });
const prepare = () => prepareGpuNuts(schools, { chains: OPTS.chains, maxDepth: OPTS.maxDepth, dtype: "f64", iterationsPerSubmit: 3 });

async function draws(gpu: Awaited<ReturnType<typeof prepare>>): Promise<number[][]> {
  return sample(await modelDensity(schools), { ...OPTS, transitionRunner: gpu }).draws.map((d) => Array.from(d));
}

beforeEach(() => {
  closeIdleDevices();
});

afterEach(() => {
  if (load.ok) load.addon.testHooks.clear();
  closeIdleDevices();
});

describe.runIf(usableDevices().length > 0)("devices shared by the runs of one process", () => {
  it("a run after another reuses the device it left open, with the draws of a fresh device", async () => {
    expect(live().contexts).toBe(0);
    const first = await prepare();
    const fresh = await draws(first);
    first.dispose();
    // The first run's buffers are gone; its device stays open for the next run.
    expect(live()).toEqual({ contexts: 1, buffers: 0 });
    const second = await prepare();
    expect(live().contexts).toBe(1);
    const reused = await draws(second);
    second.dispose();
    expect(reused).toEqual(fresh);
    expect(closeIdleDevices()).toBe(1);
    expect(live()).toEqual({ contexts: 0, buffers: 0 });
  });

  it("runs at the same time each hold their own device, and both are reused afterwards", async () => {
    const [a, b] = await Promise.all([prepare(), prepare()]);
    expect(live().contexts).toBe(2);
    a.dispose();
    b.dispose();
    expect(live()).toEqual({ contexts: 2, buffers: 0 });
    const c = await prepare();
    expect(live().contexts).toBe(2);
    await draws(c);
    c.dispose();
    expect(closeIdleDevices()).toBe(2);
    expect(live().contexts).toBe(0);
  });

  it("a device lost during a run is closed at its disposal, and the next run opens a new one", async () => {
    if (!load.ok) throw new Error(load.reason);
    const clean = await prepare();
    const expected = await draws(clean);
    clean.dispose();
    const gpu = await prepare();
    let error: unknown;
    try {
      load.addon.testHooks.failCall("vkWaitForFences", "VK_ERROR_DEVICE_LOST", 2);
      await draws(gpu);
    } catch (e) {
      error = e;
    } finally {
      gpu.dispose();
    }
    expect(error).toBeInstanceOf(VulkanError);
    expect(live()).toEqual({ contexts: 0, buffers: 0 });
    const next = await prepare();
    expect(await draws(next)).toEqual(expected);
    next.dispose();
  });

  it(`an idle device closes by itself after ${IDLE_DEVICE_MS} ms`, async () => {
    const gpu = await prepare();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      gpu.dispose();
      vi.advanceTimersByTime(IDLE_DEVICE_MS - 1);
      expect(live().contexts).toBe(1);
      vi.advanceTimersByTime(2);
      expect(live()).toEqual({ contexts: 0, buffers: 0 });
      expect(closeIdleDevices()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
