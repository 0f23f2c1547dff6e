// `ppl sample --init pathfinder --backend vulkan` on the posteriordb suite, on whatever Vulkan
// device the machine has (lavapipe in CI): each chain starts at a draw of multi-path Pathfinder run
// as the command runs it (pathfinderInits, its paths the device's batched gradient in the run's
// float type, or the CPU where the driver cannot build the model's batched gradient), and the
// transitions run in the whole-device shape with the posterior's settings, as
// packages/ppl-vulkan/test/posteriordb-vulkan*.test.ts run them from uniform starts; each posterior
// must pass the pass rule. lavapipe runs shaders on the CPU: the eleven take about an hour on an
// idle 2-core machine (docs/pathfinder.md has the times), so the whole file is PPL_LONG=1. The CPU
// counterpart is packages/ppl/test/pathfinder-init-posteriordb.test.ts.
import { describe, expect, it } from "vitest";
import { compileModel } from "@ppl/ppl";
import { DEFAULT_SEED, failureLines, loadModel, loadPosterior, posteriorSettings, runPosterior } from "@ppl/ppl/internals";
import { prepareGpuNuts } from "@ppl/ppl-vulkan";
import { usableDevices } from "@ppl/vulkan";
import { pathfinderInits } from "../src/pathfinder-init.ts";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const SUITE = [
  "eight_schools-eight_schools_noncentered", "sblrc-blr", "mesquite-logmesquite", "arK-arK", "garch-garch11", "low_dim_gauss_mix-low_dim_gauss_mix",
  "hmm_example-hmm_example", "kidiq-kidscore_interaction", "earnings-logearn_interaction", "diamonds-diamonds", "gp_pois_regr-gp_pois_regr",
];
const device = usableDevices()[0];

describe.runIf(LONG && device !== undefined)("NUTS on Vulkan from Pathfinder's draws on posteriordb (PPL_LONG=1)", () => {
  it.each(SUITE)("%s passes the rule", { timeout: 3_600_000 }, async (name) => {
    const posterior = loadPosterior(name);
    const compiled = compileModel(await loadModel(name), posterior.data);
    // Pathfinder's paths in the run's float type, as the command places them.
    const dtype = posteriorSettings(name, posterior.reference).precision;
    const io = { stdout: { write: () => true }, stderr: { write: () => true } };
    const t0 = performance.now();
    const init = await pathfinderInits(compiled, 4, 0, DEFAULT_SEED, io, { backend: "vulkan", dtype, device: device!.index });
    const report = await runPosterior(name, {
      init: init.perChain,
      runner: (c, settings) => prepareGpuNuts(c, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: settings.precision, shape: "device", metric: settings.metric }),
    });
    // The init line names where the paths ran (the device, or the CPU and why).
    console.log(`${name} (${dtype}): ${((performance.now() - t0) / 1000).toFixed(0)} s; ${init.notes.join("; ")}`);
    expect(report.missing).toEqual([]);
    expect(failureLines(report), `${name}: worst |z| ${report.worstZ.value.toFixed(2)} (${report.worstZ.name})`).toEqual([]);
    expect(report.pass).toBe(true);
  });
});
