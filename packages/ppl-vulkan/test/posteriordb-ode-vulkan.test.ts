// The two ODE posteriors (odeRK45 inside the gradient) with the NUTS transitions on Vulkan
// (lavapipe in CI), in the whole-device shape and f64, as their settings ask. On lavapipe they take
// long (one_comp_mm_elim_abs about ten minutes, Lotka–Volterra most of an hour on this 2-core
// machine), so they run with PPL_LONG=1; the solver itself runs on lavapipe in every CI run through
// its conformance case (packages/tensor/src/testing/cases/scan.ts).
import { describe, expect, it } from "vitest";
import { usableDevices } from "@ppl/vulkan";
import { failureLines, runPosterior, type PosteriorReport } from "@ppl/ppl/internals";
import { prepareGpuNuts } from "../src/index.ts";

// As in packages/ppl/test/posteriordb-ode.test.ts: one_comp's K_m and V_m have tails so heavy
// (reference draws up to 296 for a mean of 2.5) that the sd of 4 × 1000 draws falls short of the
// reference's (made from 100,000) on the CPU and in public cmdstan runs alike; their means must pass.
const HEAVY_TAILED: Readonly<Record<string, readonly string[]>> = { "one_comp_mm_elim_abs-one_comp_mm_elim_abs": ["K_m", "V_m"] };

async function onDevice(name: string): Promise<PosteriorReport> {
  const report = await runPosterior(name, {
    runner: (compiled, settings) =>
      prepareGpuNuts(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, dtype: settings.precision, shape: "device", metric: settings.metric }),
  });
  console.log(`${name} on Vulkan: worst |z| ${report.worstZ.value.toFixed(2)} (${report.worstZ.name}), sd ratio ${report.worstSdRatio.value.toFixed(3)} (${report.worstSdRatio.name}), ${report.divergences} divergences, ${report.wallSeconds.toFixed(0)} s`);
  return report;
}

describe.runIf(usableDevices().length > 0 && process.env.PPL_LONG)("ODE posteriors on the Vulkan backend (PPL_LONG=1)", () => {
  it.each(["hudson_lynx_hare-lotka_volterra", "one_comp_mm_elim_abs-one_comp_mm_elim_abs"])("%s passes the rule in the whole-device shape, f64", { timeout: 7_200_000 }, async (name) => {
    const r = await onDevice(name);
    expect(r.missing).toEqual([]);
    const heavy = HEAVY_TAILED[name] ?? [];
    const failures = r.checks.filter((c) => !c.pass && !(heavy.includes(c.name) && Math.abs(c.z) <= 4 && c.sdRatio >= 0.55));
    expect(failureLines({ ...r, checks: failures })).toEqual([]);
  });
});
