// sampleAsync starts each sampling block on the device before the host has recorded the block
// before it (the device already holds the chains' state): the draws must be bit for bit those of
// the synchronous run, which uploads the state before every block, on every execution shape; and
// a run stopped with a block still on the device gives its device back once that block is done.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample, sampleAsync, type SampleResult } from "@ppl/ppl";
import { loadAddon, usableDevices } from "@ppl/vulkan";
import { closeIdleDevices, prepareGpuNuts, type ExecutionShape } from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const data = JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")) as never;
const model = compileModel(eightSchools, data);
// 10 draws in blocks of 3: four sampling blocks, three of them started ahead.
const settings = { chains: 3, warmup: 20, draws: 10, seed: 11, maxDepth: 6 } as const;
const plain = (res: SampleResult) => ({
  draws: res.draws.map((d) => Array.from(d)),
  stats: res.stats.map((s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Array.from(v as Float64Array)]))),
});

describe.runIf(usableDevices().length > 0)("sampling blocks started ahead (sampleAsync)", () => {
  for (const shape of ["thread", "workgroup", "device"] as const satisfies readonly ExecutionShape[]) {
    it(`${shape} shape: the asynchronous run equals the synchronous one bit for bit`, async () => {
      const density = await modelDensity(model);
      const runs = [];
      for (const async of [false, true]) {
        const gpu = await prepareGpuNuts(model, { chains: settings.chains, maxDepth: 6, dtype: "f32", iterationsPerSubmit: 3, shape });
        try {
          const res = async
            ? await sampleAsync(gpu.hostDensity(density), { ...settings, transitionRunner: gpu, yieldEveryMs: 0 })
            : sample(gpu.hostDensity(density), { ...settings, transitionRunner: gpu });
          runs.push({ ...plain(res), ahead: gpu.counters.blocksAhead });
        } finally {
          gpu.dispose();
        }
      }
      expect(runs.map((r) => r.ahead)).toEqual([0, 3]);
      expect(runs[1]!.draws).toEqual(runs[0]!.draws);
      expect(runs[1]!.stats).toEqual(runs[0]!.stats);
      expect(runs[0]!.draws.flat().every(Number.isFinite)).toBe(true);
    });
  }

  it("a run stopped while a block is ahead releases its device when the block is done", async () => {
    const gpu = await prepareGpuNuts(model, { chains: settings.chains, maxDepth: 6, dtype: "f32", iterationsPerSubmit: 3, shape: "device" });
    let seen = 0;
    const stop = new Error("stopped by the test");
    // onDraw runs for each chain after its iteration is recorded: the first chain's fifth sampling
    // draw is the second of the second block, whose successor is already on the device.
    const run = sampleAsync(gpu.hostDensity(await modelDensity(model)), {
      ...settings, transitionRunner: gpu, yieldEveryMs: 0,
      onDraw: () => { if (++seen === (settings.warmup + 4) * settings.chains + 1) throw stop; },
    });
    await expect(run).rejects.toBe(stop);
    expect(gpu.counters.blocksAhead).toBe(2);
    gpu.dispose();
    // The release waits for the block on the device; then every device object is gone.
    const load = loadAddon();
    if (!load.ok) throw new Error("no addon");
    for (let i = 0; i < 200 && load.addon.testHooks.live().buffers > 0; i++) await new Promise((r) => setTimeout(r, 10));
    closeIdleDevices();
    expect(load.addon.testHooks.live()).toEqual({ contexts: 0, buffers: 0 });
  });
});
