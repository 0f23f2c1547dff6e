// The GPU sampler is selected the way a backend is: importing the package registers it with ppl as
// the "vulkan" transition runner, prepared from ppl's run plan.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample, SamplerOptionError } from "@ppl/ppl";
import { prepareTransitionRunner, transitionRunnerNames } from "@ppl/ppl/runner";
import { usableDevices } from "@ppl/vulkan";
import { prepareGpuNuts } from "../src/index.ts";
import eightSchools from "../../../examples/eight_schools.ts";

const data = JSON.parse(readFileSync(new URL("../../../examples/eight_schools.json", import.meta.url), "utf8"));
const compiled = compileModel(eightSchools, data);
const device = usableDevices()[0];
const plan = { chains: 2, maxDepth: 6, metric: "diag", dtype: "f64", shape: "device" } as const;

describe("the GPU sampler as ppl's 'vulkan' transition runner", () => {
  it("is registered by importing the package", () => {
    expect(transitionRunnerNames()).toContain("vulkan");
  });

  it("refuses an unknown runner and an unknown shape, naming what exists", async () => {
    await expect(prepareTransitionRunner("tpu", compiled, plan)).rejects.toThrow(/no transition runner named 'tpu' \(registered: .*vulkan/);
    await expect(prepareTransitionRunner("vulkan", compiled, { ...plan, shape: "warp" })).rejects.toThrow(SamplerOptionError);
    await expect(prepareTransitionRunner("vulkan", compiled, { ...plan, shape: "warp" })).rejects.toThrow(/thread, workgroup, device/);
  });

  it.runIf(device !== undefined && device.features.shaderFloat64)("prepared from the plan, draws what prepareGpuNuts draws", async () => {
    const opts = { chains: plan.chains, warmup: 4, draws: 4, seed: 5, maxDepth: plan.maxDepth, metric: plan.metric };
    const byName = await prepareTransitionRunner("vulkan", compiled, plan);
    const direct = await prepareGpuNuts(compiled, { ...plan, shape: "device" });
    try {
      expect(byName.plan).toMatchObject({ ...plan, shape: "device" });
      const host = await modelDensity(compiled);
      // The run's chains, depth and metric come from the runner's plan alone.
      const a = sample(byName.hostDensity(host), { warmup: opts.warmup, draws: opts.draws, seed: opts.seed, transitionRunner: byName });
      expect(a.settings).toMatchObject({ chains: plan.chains, maxDepth: plan.maxDepth, metric: plan.metric });
      const b = sample(direct.hostDensity(host), { ...opts, transitionRunner: direct });
      expect(a.draws.map((d) => Array.from(d))).toEqual(b.draws.map((d) => Array.from(d)));
    } finally {
      byName.dispose();
      direct.dispose();
    }
  });
});
