// The posteriordb pass rule with the NUTS transitions on Vulkan (lavapipe in CI): the fused kernel,
// and the whole-device shape.
// lavapipe stops shader loops after 65,535 iterations per invocation, which longer models' NUTS
// transitions exceed, so CI checks the models whose transitions fit; bench/posteriordb-gpu.ts runs
// all eleven on a real GPU (results in bench/RESULTS.md).
import { describe, expect, it } from "vitest";
import { runPosterior } from "@ppl/ppl";
import { prepareGpuNuts, usableDevices } from "@ppl/vulkan";

describe.runIf(usableDevices().length > 0)("posteriordb on the Vulkan backend", () => {
  it.each(["f32", "f64"] as const)("eight schools (non-centred) passes the rule, %s", async (dtype) => {
    const report = await runPosterior("eight_schools-eight_schools_noncentered", {
      runner: async (compiled, settings) => {
        const gpu = await prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype });
        expect(gpu.shape).toBe("thread");
        return { factory: (ctx) => gpu.factory(ctx), dispose: () => gpu.dispose() };
      },
    });
    expect(report.missing).toEqual([]);
    expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(["mu", "tau", "theta[1]", "theta[8]"]));
    expect(report.checks.length).toBe(10);
    for (const c of report.checks) expect(c.pass, `${c.name}: z ${c.z}, sd ratio ${c.sdRatio}`).toBe(true);
  });

  it("eight schools passes the rule in the whole-device shape (batched gradient + controller kernels), f32", async () => {
    const report = await runPosterior("eight_schools-eight_schools_noncentered", {
      runner: async (compiled, settings) => {
        const gpu = await prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: "f32", shape: "device" });
        return { factory: (ctx) => gpu.factory(ctx), density: (host) => gpu.hostDensity(host), dispose: () => gpu.dispose() };
      },
    });
    expect(report.checks.length).toBe(10);
    for (const c of report.checks) expect(c.pass, `${c.name}: z ${c.z}, sd ratio ${c.sdRatio}`).toBe(true);
  });
});
