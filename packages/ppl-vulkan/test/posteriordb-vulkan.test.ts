// The posteriordb pass rule with the NUTS transitions on Vulkan (lavapipe in CI): eight schools
// in the fused kernel (f32 and f64), and the whole-device shape on eight schools and the
// time-series and mixture posteriors. The fused kernel runs a whole transition inside one shader
// invocation, and lavapipe stops every shader loop after 65,535 iterations, which the longer
// models' transitions exceed; the device shape keeps the NUTS loop between dispatches, so it runs
// them here. posteriordb-vulkan-regressions.test.ts has the regressions; bench/posteriordb-gpu.ts
// runs all eleven on a real GPU (results in bench/RESULTS.md).
import { describe, expect, it } from "vitest";
import { usableDevices } from "@ppl/vulkan";
import { prepareGpuNuts } from "../src/index.ts";
import { passesOnDevice } from "./posteriordb-device.ts";

describe.runIf(usableDevices().length > 0)("posteriordb on the Vulkan backend", () => {
  it.each(["f32", "f64"] as const)("eight schools (non-centred) passes the rule in the fused kernel, %s", async (dtype) => {
    const report = await passesOnDevice("eight_schools-eight_schools_noncentered", async (compiled, settings) => {
      return prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype, shape: "thread" });
    });
    expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(["mu", "tau", "theta[1]", "theta[8]"]));
    expect(report.checks.length).toBe(10);
  });

  it.each([
    "eight_schools-eight_schools_noncentered",
    "garch-garch11",
    "arK-arK",
    "hmm_example-hmm_example",
    "low_dim_gauss_mix-low_dim_gauss_mix",
  ])("%s passes the rule in the whole-device shape (batched gradient + controller kernels), f32", { timeout: 600_000 }, async (name) => {
    await passesOnDevice(name, (compiled, settings) =>
      prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: "f32", shape: "device", metric: settings.metric }));
  });
});
