// The posteriordb regressions with the GPU sampler in the whole-device shape on lavapipe (see
// posteriordb-vulkan.test.ts). earnings and gp_pois_regr, which CI runs on the CPU backend, are
// left to bench/posteriordb-gpu.ts on a real GPU: their deep trees take many minutes on lavapipe.
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
