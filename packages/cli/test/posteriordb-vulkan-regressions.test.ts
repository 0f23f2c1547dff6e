// The posteriordb regressions with the GPU sampler in the whole-device shape on lavapipe (see
// posteriordb-vulkan.test.ts). kidiq (3.5 min here), earnings (8 min) and gp_pois_regr (hours),
// which CI runs on the CPU backend, are left to bench/posteriordb-gpu.ts (the lavapipe table is
// in bench/RESULTS.md): lavapipe runs a shader on the CPU, and their trees are deep. kidiq's
// device-shape transitions are checked against the CPU sampler's in gpu-nuts.test.ts.
import { describe, it } from "vitest";
import { prepareGpuNuts, usableDevices } from "@ppl/vulkan";
import { passesOnDevice } from "./posteriordb-device.ts";

describe.runIf(usableDevices().length > 0)("posteriordb regressions on the Vulkan backend", () => {
  it.each(["sblrc-blr", "mesquite-logmesquite"])(
    "%s passes the rule in the whole-device shape, f32",
    { timeout: 900_000 },
    async (name) => {
      await passesOnDevice(name, (compiled, settings) =>
        prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: "f32", shape: "device", metric: settings.metric }));
    },
  );
});
