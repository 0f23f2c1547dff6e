// The posteriordb regressions with the GPU sampler in the whole-device shape on lavapipe (see
// posteriordb-vulkan.test.ts): sblrc and mesquite (1 min on an idle 2-core machine). kidiq (2.3 min,
// the suite's longest file with it), earnings (4 min), diamonds (dense metric, 3 min) and gp_pois_regr (f64, 17 min: 3.6M gradients,
// each a serial Cholesky) run with PPL_LONG=1; CI checks gp_pois_regr's transitions against the CPU sampler's in
// every shape (gpu-nuts.test.ts), and bench/posteriordb-gpu.ts runs all eleven on a real GPU.
import { describe, it } from "vitest";
import { usableDevices } from "@ppl/vulkan";
import { prepareGpuNuts } from "../src/index.ts";
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

describe.runIf(usableDevices().length > 0 && process.env.PPL_LONG)("posteriordb on the Vulkan backend, long (PPL_LONG=1)", () => {
  it.each(["kidiq-kidscore_interaction", "earnings-logearn_interaction", "diamonds-diamonds", "gp_pois_regr-gp_pois_regr"])(
    "%s passes the rule in the whole-device shape (in the precision its settings ask for)",
    { timeout: 3_600_000 },
    async (name) => {
      await passesOnDevice(name, (compiled, settings) =>
        prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: settings.precision, shape: "device", metric: settings.metric }));
    },
  );
});
