// Pipeline statistics (VK_KHR_pipeline_executable_properties): what a driver compiled a shader
// into, for the benchmarks' occupancy and spill reports. lavapipe does not report them, so CI
// checks the paths a device without them takes; a device that has them returns its figures.
import { afterAll, describe, expect, it } from "vitest";
import { VulkanManager } from "../src/index.ts";
import { compile, lavapipe } from "./helpers.ts";

const device = lavapipe();
const plain = new VulkanManager(device.index);
const asking = new VulkanManager(device.index, { pipelineStatistics: true });
afterAll(() => {
  plain.destroy();
  asking.destroy();
});

const SHADER = `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { float v[]; };
void main() { v[gl_GlobalInvocationID.x] = exp(v[gl_GlobalInvocationID.x]); }`;

describe("pipeline statistics", () => {
  it("the device listing says whether the device reports them", () => {
    expect(typeof device.features.pipelineExecutableInfo).toBe("boolean");
  });

  it("are null unless the manager asked for them", async () => {
    const a = plain.algorithm(await compile(SHADER), { buffers: 1 });
    expect(a.statistics()).toBeNull();
  });

  it("are the driver's figures when asked for and reported, else null", async () => {
    const a = asking.algorithm(await compile(SHADER), { buffers: 1 });
    const stats = a.statistics();
    if (!device.features.pipelineExecutableInfo) {
      expect(stats).toBeNull();
      return;
    }
    expect(stats!.length).toBeGreaterThan(0);
    for (const e of stats!) {
      expect(e.name.length).toBeGreaterThan(0);
      expect(e.statistics.length).toBeGreaterThan(0);
      for (const s of e.statistics) expect(Number.isFinite(s.value)).toBe(true);
    }
  });

  it("refuse a destroyed algorithm", async () => {
    const a = asking.algorithm(await compile(SHADER), { buffers: 1 });
    a.destroy();
    expect(() => a.statistics()).toThrow(/destroyed/);
  });
});
