// The posteriordb regressions with the GPU sampler in the whole-device shape on lavapipe (see
// posteriordb-vulkan.test.ts): sblrc, mesquite and kidiq (2 min on an idle 2-core machine).
// earnings (several minutes) runs with PPL_LONG=1. gp_pois_regr, which CI runs on the CPU
// backend, would take hours on lavapipe (a serial Cholesky per gradient, trees of depth up to 15);
// its transitions are checked against the CPU sampler's in every shape in gpu-nuts.test.ts, and
// its full run is on a real GPU with bench/posteriordb-gpu.ts (bench/RESULTS.md).
import { describe, it } from "vitest";
import { prepareGpuNuts, usableDevices } from "@ppl/vulkan";
import { passesOnDevice } from "./posteriordb-device.ts";

describe.runIf(usableDevices().length > 0)("posteriordb regressions on the Vulkan backend", () => {
  it.each(["sblrc-blr", "mesquite-logmesquite", "kidiq-kidscore_interaction"])(
    "%s passes the rule in the whole-device shape, f32",
    { timeout: 900_000 },
    async (name) => {
      await passesOnDevice(name, (compiled, settings) =>
        prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: "f32", shape: "device", metric: settings.metric }));
    },
  );
});

describe.runIf(usableDevices().length > 0 && process.env.PPL_LONG)("posteriordb on the Vulkan backend, long (PPL_LONG=1)", () => {
  it("earnings-logearn_interaction passes the rule in the whole-device shape, f32", { timeout: 1_800_000 }, async () => {
    await passesOnDevice("earnings-logearn_interaction", (compiled, settings) =>
      prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: "f32", shape: "device", metric: settings.metric }));
  });
});
