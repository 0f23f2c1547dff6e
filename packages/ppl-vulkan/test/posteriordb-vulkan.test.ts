// The posteriordb pass rule with the NUTS transitions on Vulkan (lavapipe in CI): eight schools
// in the fused kernel (f32 and f64), and the whole-device shape on eight schools and the
// time-series and mixture posteriors. The fused kernel runs a whole transition inside one shader
// invocation, and lavapipe stops every shader loop after 65,535 iterations, which the longer
// models' transitions exceed; the device shape keeps the NUTS loop between dispatches, so it runs
// them here. posteriordb-vulkan-regressions.test.ts has the regressions; bench/posteriordb-gpu.ts
// runs all eleven on a real GPU (results in bench/RESULTS.md).
// arK and low_dim_gauss_mix's full runs in the device shape (about 47 s of CPU each on lavapipe)
// are behind PPL_LONG=1: by default the shape passes the rule on eight schools, garch and
// hmm_example here (sblrc and mesquite in the regressions file), and on arK and low_dim_gauss_mix
// its transitions are checked equal to the CPU sampler's, which passes the rule on both
// (packages/ppl/test/posteriordb.test.ts).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, type CompiledModel } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import arK from "../../../examples/posteriordb/arK-arK.ts";
import lowDimGaussMix from "../../../examples/posteriordb/low_dim_gauss_mix-low_dim_gauss_mix.ts";
import { prepareGpuNuts } from "../src/index.ts";
import { passesOnDevice } from "./posteriordb-device.ts";
import { expectCpuTransitions } from "./reference-check.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const dataOf = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../../../shared/posteriordb/${name}/data.json`, import.meta.url), "utf8")) as Record<string, unknown>;

describe.runIf(usableDevices().length > 0)("posteriordb on the Vulkan backend", () => {
  it.each(["f32", "f64"] as const)("eight schools (non-centred) passes the rule in the fused kernel, %s", async (dtype) => {
    const report = await passesOnDevice("eight_schools-eight_schools_noncentered", async (compiled, settings) => {
      return prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype, shape: "thread" });
    });
    expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(["mu", "tau", "theta[1]", "theta[8]"]));
    expect(report.checks.length).toBe(10);
  });

  const deviceRuns = ["eight_schools-eight_schools_noncentered", "garch-garch11", "hmm_example-hmm_example"];
  const longDeviceRuns = ["arK-arK", "low_dim_gauss_mix-low_dim_gauss_mix"];
  it.each(LONG ? [...deviceRuns, ...longDeviceRuns] : deviceRuns)(
    "%s passes the rule in the whole-device shape (batched gradient + controller kernels), f32",
    { timeout: 600_000 },
    async (name) => {
      await passesOnDevice(name, (compiled, settings) =>
        prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: "f32", shape: "device", metric: settings.metric }));
    },
  );

  // No warmup, unit metric, from the CPU sampler's random inits: every chain's tree depths equal
  // and its draws within 1e-9 of the CPU sampler's over a few transitions.
  const run = { chains: 4, draws: 4, seed: 11, stepSize: 0.05, maxDepth: 6 };
  const compiled: Record<string, () => CompiledModel> = {
    "arK-arK": () => compileModel(arK, dataOf("arK-arK")),
    "low_dim_gauss_mix-low_dim_gauss_mix": () => compileModel(lowDimGaussMix, dataOf("low_dim_gauss_mix-low_dim_gauss_mix")),
  };
  it.each(Object.keys(compiled))("%s: the whole-device shape's transitions are the CPU sampler's, f64", async (name) => {
    await expectCpuTransitions(compiled[name]!(), run, "device");
  });
});
