// The approximations (Pathfinder, ADVI, Laplace) with their batched evaluations on the GPU's
// batched gradient, against the CPU for the same seed, on whatever Vulkan device the machine has
// (lavapipe in CI), in f64.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { approximateCompiled, compileModel, type ApproximateFit, type ApproximateOptions } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const data = JSON.parse(
  readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8"),
);
const device = usableDevices()[0];

// The largest difference between two fits' values, over every column and draw, relative to the column's scale (at least 1).
function largestDifference(a: ApproximateFit, b: ApproximateFit, lead: readonly string[]): number {
  let worst = 0;
  for (const name of [...lead, ...a.names]) {
    const x = a.draws(name);
    const y = b.draws(name);
    expect(x.length).toBe(y.length);
    x.forEach((v, i) => (worst = Math.max(worst, Math.abs(v - y[i]!) / Math.max(1, Math.abs(y[i]!)))));
  }
  return worst;
}

describe.runIf(device !== undefined && device.features.shaderFloat64)("the approximations on the GPU's batched gradient, f64, against the CPU", () => {
  const compiled = compileModel(eightSchools, data);
  const both = async (options: ApproximateOptions): Promise<[ApproximateFit, ApproximateFit]> => [
    await approximateCompiled(compiled, options),
    await approximateCompiled(compiled, { ...options, backend: "vulkan", dtype: "f64", device: device!.index }),
  ];

  it("pathfinder: 4 paths in lockstep give the CPU's draws to rounding; the file says where it ran", async () => {
    const [cpu, gpu] = await both({ method: "pathfinder", seed: 7, numPaths: 4, draws: 200 });
    const worst = largestDifference(gpu, cpu, ["lp__", "lp_approx__"]);
    console.log(`pathfinder, lavapipe f64 against the CPU: largest relative difference ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-8);
    expect(gpu.notes.map((n) => n.replace(/ELBO \S+/, ""))).toEqual([...cpu.notes.map((n) => n.replace(/ELBO \S+/, "")), expect.stringMatching(/^backend: vulkan \(f64\)/)]);
  });

  it("variational (meanfield): each gradient's and ELBO's draws one batched call, the step-size trials in lockstep, the CPU's fit to rounding", async () => {
    const [cpu, gpu] = await both({ method: "variational", seed: 3, draws: 100, iter: 600, gradSamples: 4, elboSamples: 50, adaptIter: 20 });
    const worst = largestDifference(gpu, cpu, ["log_p__", "log_g__"]);
    console.log(`variational, lavapipe f64 against the CPU: largest relative difference ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-8);
    expect(gpu.ascent!.iterations).toBe(cpu.ascent!.iterations);
    expect(gpu.ascent!.adaptation!.trials.map((t) => t.eta)).toEqual(cpu.ascent!.adaptation!.trials.map((t) => t.eta));
    expect(gpu.ascent!.eta).toBe(cpu.ascent!.eta);
    // The trials' gradients in lockstep: 5 × 4 rows a round.
    expect(gpu.notes.join("\n")).toMatch(/each round of 4 or 20 or 50 points/);
  });

  it("laplace: the mode search (L-BFGS one row a call, Newton's Hessians), the Hessian's 2·dim gradients and the draws' densities on the device, the CPU's draws to rounding", async () => {
    const [cpu, gpu] = await both({ method: "laplace", seed: 5, draws: 200 });
    const worst = largestDifference(gpu, cpu, ["log_p__", "log_g__"]);
    console.log(`laplace, lavapipe f64 against the CPU: largest relative difference ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-8);
    expect(gpu.notes.join("\n")).toMatch(new RegExp(`each round of 1 or ${2 * compiled.dim} points`));
  });

  it.runIf(device?.type === "cpu")("auto leaves a CPU implementation of Vulkan for the CPU backend: the CPU's bits, no backend line", async () => {
    const options = { method: "laplace", seed: 5, draws: 50 } as const;
    const cpu = await approximateCompiled(compiled, options);
    const auto = await approximateCompiled(compiled, { ...options, backend: "auto" });
    expect(Array.from(auto.draws("log_p__"))).toEqual(Array.from(cpu.draws("log_p__")));
    expect(auto.notes).toEqual(cpu.notes);
  });
});
