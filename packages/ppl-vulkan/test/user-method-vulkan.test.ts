// A method of the user's own, written from the public inference layer alone
// (packages/ppl/test/fixtures/methods/toy-random-walk.mjs imports only @ppl/ppl/inference), on the
// GPU's batched gradient (lavapipe in CI): its controller runs on the host unchanged, each round
// of all chains' log densities one device evaluation, and in f64 its draws are the CPU's bits for
// the same seed; their mean and variance are the Gaussian target's within Monte Carlo error. With
// user-method.test.ts (one chain, worker threads) it covers the three drivers of a new method.
import { describe, expect, it } from "vitest";
import { compileModel, mcseMean, model, modelDensity, normal, sample, type SampleResult } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import { prepareGpuGradient } from "../src/index.ts";
import { toyRandomWalk } from "../../ppl/test/fixtures/methods/toy-random-walk.mjs";

const device = usableDevices()[0];
// Independent normals: a ~ N(0.5, 1.5²), b ~ N(3, 0.8²); the unconstrained point is (a, b).
const MEANS = [0.5, 3];
const SDS = [1.5, 0.8];
const gaussian = model({
  name: "two_normals",
  data: {},
  build(m) {
    m.param("a", normal(MEANS[0]!, SDS[0]!));
    m.param("b", normal(MEANS[1]!, SDS[1]!));
  },
});

const coordinate = (r: SampleResult, j: number, f: (x: number) => number = (x) => x): Float64Array[] =>
  r.draws.map((d) => Float64Array.from({ length: r.drawsDone }, (_, i) => f(d[i * r.dim + j]!)));
const meanOf = (chains: Float64Array[]): number => chains.reduce((s, c) => s + c.reduce((a, x) => a + x, 0), 0) / chains.reduce((n, c) => n + c.length, 0);

describe.runIf(device !== undefined && device.features.shaderFloat64)("a method of the user's own on the GPU's batched gradient", () => {
  it("f64: the CPU's bits for the same seed, and the target's mean and variance", async () => {
    const compiled = compileModel(gaussian, {});
    const opts = { chains: 8, warmup: 50, draws: 1500, seed: 20261207, stepSize: 1.5, method: toyRandomWalk };
    const cpu = sample(await modelDensity(compiled, { backend: "cpu" }), opts);
    const gpu = await prepareGpuGradient(compiled, { chains: 8, maxDepth: 10, metric: "diag", dtype: "f64", transitions: "host" });
    try {
      const host = await modelDensity(compiled, { backend: "cpu" });
      const res = sample(gpu.hostDensity(host), { ...opts, transitionRunner: gpu });
      // Every batched call went to the device.
      expect(host.evaluations).toBe(0);
      res.draws.forEach((d, c) => expect(Array.from(d), `chain ${c + 1}`).toEqual(Array.from(cpu.draws[c]!)));
      for (let j = 0; j < 2; j++) {
        const x = coordinate(res, j);
        const sq = coordinate(res, j, (v) => (v - MEANS[j]!) ** 2);
        expect(Math.abs((meanOf(x) - MEANS[j]!) / mcseMean(x)), `coordinate ${j} mean`).toBeLessThan(4);
        expect(Math.abs((meanOf(sq) - SDS[j]! ** 2) / mcseMean(sq)), `coordinate ${j} variance`).toBeLessThan(4);
      }
    } finally {
      gpu.dispose();
    }
  });
});
