// A long random walk's batched gradient on the device (examples/random_walk.ts, T = 40,000, past
// lavapipe's loop budget and far past a GPU's threshold): its cumulative sums, forward in the
// density and reversed in the gradient, are scanned in blocks over workgroups, and lp and the
// gradient of every chain equal the CPU's (f64) to f32 rounding.
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity } from "@ppl/ppl";
import { limitsOf, usableDevices, VulkanManager } from "@ppl/vulkan";
import randomWalk from "../../../examples/random_walk.ts";
import { batchedGradient, batchedGradientPlan } from "../src/batched-gradient.ts";

const device = usableDevices()[0];
const T = 40_000;
const y = Array.from({ length: T }, (_, t) => Math.sin(t * 1e-3) * 3 + 0.5 * Math.sin(t * 0.7));

describe.runIf(device !== undefined)("a long random walk's batched gradient", () => {
  it("scans its cumsums in blocks and equals the CPU's, chain by chain", async () => {
    const C = 2;
    const model = compileModel(randomWalk, { T, y });
    const D = model.q.size;
    const plan = batchedGradientPlan(model, C, "f32", limitsOf(device!));
    expect(plan.kernels.filter((k) => k.source.includes("cumsum scanned in blocks")).length).toBeGreaterThanOrEqual(2);
    const q = Float64Array.from({ length: C * D }, (_, i) => 0.8 * Math.sin(1.3 * i + 0.2));
    const manager = new VulkanManager(device!.index);
    try {
      const g = await batchedGradient(manager, model, C, "f32");
      g.q.write(Float32Array.from(q));
      const s = manager.sequence();
      g.step.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
      s.submitSync();
      s.destroy();
      const lp = Array.from(new Float32Array(g.lp.read(C * 4)));
      const grad = Array.from(new Float32Array(g.grad.read(C * D * 4)));
      g.dispose();
      const cpu = await modelDensity(model);
      const wantLp = new Float64Array(C), wantGrad = new Float64Array(C * D);
      cpu.logpGrad(Float64Array.from(Float32Array.from(q)), wantLp, wantGrad);
      // f32 sums of 40,000 terms in blocks: relative error a few 1e-6 of the sums of |terms|.
      lp.forEach((v, c) => expect(Math.abs(v - wantLp[c]!)).toBeLessThan(1e-5 * Math.abs(wantLp[c]!)));
      for (let c = 0; c < C; c++) {
        // Each element's error scales with the sizes of the terms it is made of: a residual
        // y_t − level_t is a difference, so its size is |y_t| + σ·Σ_{u≤t}|z_u| (level an f32 sum of
        // t terms); z_t's gradient is σ times the reverse cumulative sum of those from t on, over
        // τ², plus its prior's |z_t|; σ's and τ's gather every term.
        const qc = Float32Array.from(q.subarray(c * D, (c + 1) * D));
        const [sigma, tau] = [Math.exp(qc[0]!), Math.exp(qc[1]!)];
        let sumAbsZ = 0;
        const size = y.map((yt, t) => {
          sumAbsZ += Math.abs(qc[2 + t]!);
          return (Math.abs(yt) + sigma * sumAbsZ) / (tau * tau);
        });
        const scales = new Float64Array(D);
        let tail = 0;
        for (let t = T - 1; t >= 0; t--) {
          tail += size[t]!;
          scales[2 + t] = sigma * tail + Math.abs(qc[2 + t]!);
        }
        scales[0] = scales[1] = size.reduce((a, v, t) => a + v * (Math.abs(y[t]!) + sigma * sumAbsZ) * (1 + sigma) + 1, 0);
        for (let k = 0; k < D; k++) expect(Math.abs(grad[c * D + k]! - wantGrad[c * D + k]!)).toBeLessThan(1e-5 * scales[k]!);
      }
    } finally {
      manager.destroy();
    }
  });
});
