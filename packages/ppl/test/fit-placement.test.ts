// sample(model, data, { backend }) asks the registered placement policy (importing @ppl/ppl-vulkan
// registers placeRun and prepareRun) for the run's plan and prepares it; without a backend, or on the
// CPU in f64, it samples on the CPU as before and needs none.
import { describe, expect, it } from "vitest";
import { data, halfCauchy, model, modelDensity, normal, sample, SamplerOptionError, type Fit } from "../src/index.ts";
import { registerRunPlacement, type PlacedPlan, type PlaceRunOptions } from "../src/runner.ts";

const eightSchools = model({
  name: "eight_schools_noncentered",
  data: { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) },
  build(m, d) {
    const mu = m.param("mu", normal(0, 5));
    const tau = m.param("tau", halfCauchy(0, 5));
    const thetaTrans = m.param("theta_trans", normal(0, 1), { shape: [d.J] });
    m.observe(d.y, normal(mu.add(tau.mul(thetaTrans)), d.sigma));
  },
});
const DATA = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const OPTS = { chains: 2, warmup: 40, draws: 10, seed: 3 };

const draws = (fit: Fit): number[] => fit.names.flatMap((n) => fit.draws(n).flatMap((d) => [...d]));

describe("sample(model, data, { backend })", () => {
  it("without a registered placement: backend auto names the package to import; the CPU in f64 needs none", async () => {
    await expect(sample(eightSchools, DATA, { ...OPTS, backend: "auto" })).rejects.toThrow(SamplerOptionError);
    await expect(sample(eightSchools, DATA, { ...OPTS, backend: "vulkan" })).rejects.toThrow(/backend: "vulkan": .*add import "@ppl\/ppl-vulkan"/);
    expect(draws(await sample(eightSchools, DATA, { ...OPTS, backend: "cpu" }))).toEqual(draws(await sample(eightSchools, DATA, OPTS)));
  });

  it("asks the registered placement for the plan of the run's layout and method, and samples on what it prepares", async () => {
    const asked: PlaceRunOptions[] = [];
    let disposed = 0;
    registerRunPlacement({
      placeRun(options) {
        asked.push(options);
        return { chains: options.chains, maxDepth: options.maxDepth, metric: options.metric, dtype: "f64", backend: "cpu", note: "backend: cpu (f64), placed" };
      },
      async prepareRun(compiled) {
        return { density: await modelDensity(compiled, { backend: "cpu" }), dispose: () => void disposed++ };
      },
    });
    const plans: PlacedPlan[] = [];
    const fit = await sample(eightSchools, DATA, { ...OPTS, backend: "auto", maxDepth: 7, onPlaced: (p) => plans.push(p) });
    // The model rides along, so that placement can size a method's rounds of batched gradients by it.
    expect(asked.map(({ model, ...rest }) => rest)).toEqual([{ backend: "auto", chains: 2, maxDepth: 7, metric: "diag", method: "nuts" }]);
    expect(asked[0]!.model?.q.shape).toEqual([10]);
    expect(plans.map((p) => p.note)).toEqual(["backend: cpu (f64), placed"]);
    expect(disposed).toBe(1);
    expect(draws(fit)).toEqual(draws(await sample(eightSchools, DATA, { ...OPTS, maxDepth: 7 })));
    await sample(eightSchools, DATA, { ...OPTS, backend: "vulkan", device: 0, sampler: "hmc" });
    expect(asked[1]).toMatchObject({ backend: "vulkan", device: 0, method: "hmc" });
  });
});
