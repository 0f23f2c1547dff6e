// The CLI's wiring of a run that starts on the CPU backend while the GPU's kernel is built (where
// `--backend auto` took a GPU on its own), on the Vulkan device of this machine (lavapipe in CI,
// which `auto` itself never takes): the library's prepareRun, as ppl sample calls it, gives the CPU density at once and the GPU's sampler
// later; the run moves to it, or stays on the CPU when its preparation fails, and says so.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, sampleAsync } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import { prepareRun } from "@ppl/ppl-vulkan";
import { pendingLine } from "../src/commands/sample.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const data = JSON.parse(readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8")) as never;
const compiled = compileModel(eightSchools, data);
const plan = { chains: 2, maxDepth: 6, metric: "diag", dtype: "f32" } as const;
// The plan placeRun gives where auto took a GPU on its own: vulkan, started on the CPU in f64.
const open = (device: number) => prepareRun(compiled, { ...plan, device, backend: "vulkan", cpuFallback: { dtype: "f64" } });
const settings = { chains: 2, warmup: 150, draws: 20, seed: 3, maxDepth: 6 } as const;

describe.runIf(usableDevices().length > 0)("ppl sample on a GPU that auto took: starting on the CPU", () => {
  it("a run too short to gain from the GPU never starts preparing it, and says so", async () => {
    const device = usableDevices()[0]!.index;
    const opened = await open(device);
    let calls = 0;
    try {
      const res = await sampleAsync(opened.density, {
        ...settings,
        pendingRunner: { ready: () => (calls++, opened.pendingGpu!().then((g) => g.ready)), startAfterSeconds: 1e6 },
      });
      expect(calls).toBe(0);
      expect(res.pendingRunner).toMatchObject({ reason: "short", moved: false });
      expect(res.drawsDone).toBe(settings.draws);
      expect(pendingLine(res.pendingRunner!, "f64")).toMatch(/^backend: cpu \(f64\): the run was too short to gain from the GPU/);
    } finally {
      opened.dispose();
    }
  });

  it("opens the CPU density at once and the GPU's sampler later; the run moves to it", async () => {
    const device = usableDevices()[0]!.index;
    const opened = await open(device);
    try {
      expect(opened.transitionRunner).toBeUndefined();
      // The CPU backend's own density: the one worker threads rebuild.
      expect(typeof opened.density.share).toBe("function");
      // Ready before the run starts (a run of this size could end on the CPU first; the race
      // itself is pending-gpu.test.ts's in ppl-vulkan).
      const gpu = await opened.pendingGpu!();
      // Started once: a second call is the same preparation.
      expect(await opened.pendingGpu!()).toBe(gpu);
      const res = await sampleAsync(opened.density, { ...settings, pendingRunner: { ready: Promise.resolve(gpu.ready), margin: Infinity, probeSeconds: 0, startAfterSeconds: 0 } });
      expect(res.pendingRunner).toMatchObject({ reason: "measured", moved: true });
      expect(res.drawsDone).toBe(settings.draws);
      expect(gpu.detail).toMatch(/^GPU NUTS/);
      expect(gpu.ready.blockIterations).toBe(100);
      expect(pendingLine(res.pendingRunner!, "f64")).toMatch(/^backend: moved to vulkan after iteration \d+: the CPU backend \(f64\) sampled iterations 0–\d+/);
    } finally {
      opened.dispose();
    }
  });

  it("a GPU whose preparation fails leaves the run on the CPU, with the error in its line", async () => {
    const opened = await open(99);
    try {
      const res = await sampleAsync(opened.density, { ...settings, pendingRunner: { ready: () => opened.pendingGpu!().then((g) => g.ready), startAfterSeconds: 0 } });
      expect(res.pendingRunner).toMatchObject({ reason: "failed", moved: false });
      expect(res.drawsDone).toBe(settings.draws);
      expect(pendingLine(res.pendingRunner!, "f64")).toMatch(/^backend: cpu \(f64\): the GPU's sampler could not be prepared \(.+\); the run stayed on the CPU backend/);
    } finally {
      opened.dispose();
    }
  });
});
