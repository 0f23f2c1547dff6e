/**
 * nutpie's diagonal metric over chains, σᵢ² = √(Var(qᵢ)/Var(∂ᵢ log p)) (the many-chain warmups'
 * metric): exact for a Gaussian with independent coordinates from points anywhere, however spread
 * and however far from the posterior; coordinates it cannot estimate keep their value. And, with
 * PPL_LONG=1, ChEES from random initial points in (−2, 2) meets the posteriordb rule on sblrc-blr
 * (posterior sds 10⁻³, where the chains' spread alone left the metric at the initial spread).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gradientScaledVariance, METRIC_BOUNDS } from "../src/sampler/methods/gradient-scaled-metric.ts";
import { failureLines, runPosterior } from "../src/posteriordb/index.ts";

// Rows q and the gradients of N(mu, diag(sd²)) at them.
function gaussianRows(points: number[][], mu: number[], sd: number[]): { q: Float64Array[]; grad: Float64Array[] } {
  const q = points.map((p) => Float64Array.from(p));
  const grad = q.map((row) => row.map((x, i) => -(x - mu[i]!) / sd[i]! ** 2));
  return { q, grad };
}

describe("gradientScaledVariance", () => {
  it("gives a badly scaled Gaussian's variances from points spread far from it", () => {
    // Scales 10⁻³ … 10³, the posterior at 1 + 10·i, the points uniform in (−2, 2) as the samplers start.
    const sd = [1e-3, 1e-2, 1, 1e2, 1e3];
    const mu = sd.map((_, i) => 1 + 10 * i);
    let u = 12345;
    const uniform = (): number => ((u = (u * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 4 - 2;
    const points = Array.from({ length: 64 }, () => sd.map(() => uniform()));
    const { q, grad } = gaussianRows(points, mu, sd);
    const out = new Float64Array(sd.length);
    expect(gradientScaledVariance(q, grad, out)).toBe(sd.length);
    out.forEach((v, i) => expect(Math.abs(v / sd[i]! ** 2 - 1), `coordinate ${i}: ${v}`).toBeLessThan(1e-9));
  });

  it("is exact for any independent Gaussian and any points with spread (property)", () => {
    const coord = fc.record({ sd: fc.double({ min: 1e-3, max: 1e3, noNaN: true }), mu: fc.double({ min: -100, max: 100, noNaN: true }) });
    fc.assert(
      fc.property(fc.array(coord, { minLength: 1, maxLength: 6 }), fc.integer({ min: 2, max: 40 }), fc.integer({ min: 1, max: 2 ** 30 }), (coords, n, seed) => {
        let s = seed;
        const next = (): number => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 20 - 10;
        const points = Array.from({ length: n }, () => coords.map(() => next()));
        // Two distinct rows at least in every coordinate: the first row is shifted off the others.
        points[0] = points[0]!.map((x) => x + 50);
        const { q, grad } = gaussianRows(points, coords.map((c) => c.mu), coords.map((c) => c.sd));
        const out = new Float64Array(coords.length);
        gradientScaledVariance(q, grad, out);
        out.forEach((v, i) => expect(Math.abs(v / coords[i]!.sd ** 2 - 1)).toBeLessThan(1e-7));
      }),
      { seed: 20261207, numRuns: 200 },
    );
  });

  it("keeps a coordinate it cannot estimate, leaves out rows with a non-finite gradient, clamps to its bounds", () => {
    const q = [Float64Array.of(0, 5, 1), Float64Array.of(1, 5, 2), Float64Array.of(2, 5, 3), Float64Array.of(9, 9, 9)];
    // Coordinate 0: gradient −q/4 (σ² = 4); 1: every chain at one point; 2: a gradient constant over chains; row 3 non-finite.
    const grad = [Float64Array.of(0, 0, 1), Float64Array.of(-0.25, 0, 1), Float64Array.of(-0.5, 0, 1), Float64Array.of(NaN, 0, 0)];
    const out = Float64Array.of(7, 7, 7);
    expect(gradientScaledVariance(q, grad, out)).toBe(1);
    expect(Array.from(out)).toEqual([4, 7, 7]);
    const tiny = [Float64Array.of(0), Float64Array.of(1e-30)];
    const out2 = new Float64Array(1);
    gradientScaledVariance(tiny, [Float64Array.of(0), Float64Array.of(-1)], out2);
    expect(out2[0]).toBe(METRIC_BOUNDS.min);
  });
});

describe.runIf(process.env["PPL_LONG"])("ChEES from random initial points (PPL_LONG=1)", () => {
  it("meets the posteriordb rule on sblrc-blr with 256 chains in 16 superchains, 300 + 100 iterations", async () => {
    const r = await runPosterior("sblrc-blr", { method: "chees", superchains: 16, settings: { chains: 256, warmup: 300, draws: 100 } });
    expect(failureLines(r), `worst |z| ${r.worstZ.value.toFixed(2)} (${r.worstZ.name})`).toEqual([]);
    expect(r.pass).toBe(true);
    expect(r.maxRhatNested!.value).toBeLessThan(1.01);
  }, 600_000);
});
