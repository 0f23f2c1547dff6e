// A posterior-sized model written with the general linear algebra (issue 13, item 4): Y's rows are
// B·z with z ~ N(0, I) and B = I + sigma·C for a non-symmetric 40×40 data matrix C, so by the change
// of variables log p(Y | sigma) = −½ Σ |B⁻¹ y_m|² − M·log|det B| (Stan: mdivide_left and
// log_determinant). Its log density and gradient equal the Cholesky-based multi_normal(0, B·Bᵀ) up to
// the constant; a short NUTS run on the CPU recovers sigma's posterior mean from a quadrature.
import { describe, expect, test } from "vitest";
import { add, constant, grad, identity, interpret, logDeterminant, matmul, mT, mul, solve, square, sum, type Node } from "@ppl/tensor";
import { compileModel, data, logNormal, model, modelDensity, multivariateNormal, sample } from "../src/index.ts";

const N = 40, M = 4, SIGMA = 0.6;

// Deterministic uniforms in [0, 1) and standard normals (Box–Muller) from one LCG.
function stream(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 2 ** 32;
  };
}
const u = stream(31);
const normal01 = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());

// C: entries of scale 0.5/√N, so its eigenvalues lie in a disk of radius about 0.5 and B stays invertible for sigma < 2.
const C = Array.from({ length: N }, () => Array.from({ length: N }, () => ((2 * u() - 1) * 0.5 * Math.sqrt(3)) / Math.sqrt(N)));
const Y = Array.from({ length: M }, () => {
  const z = Array.from({ length: N }, normal01);
  return C.map((row, i) => z[i]! + SIGMA * row.reduce((s, c, j) => s + c * z[j]!, 0));
});
const dataValues = { N, M, C, Y };
const spec = { N: data.int({ lower: 1 }), M: data.int({ lower: 1 }), C: data.matrix("N", "N"), Y: data.matrix("M", "N") };

const changeOfVariables = model({
  name: "linear_transform_solve",
  data: spec,
  build(m, d) {
    const sigma = m.param("sigma", logNormal(-0.5, 0.5));
    const B = add(identity(N), mul(sigma, d.C));
    const Z = solve(B, mT(d.Y)); // column m is B⁻¹ y_m
    m.factor(add(mul(-0.5, sum(square(Z))), mul(-M, logDeterminant(B))));
  },
});

const multiNormal = model({
  name: "linear_transform_multi_normal",
  data: spec,
  build(m, d) {
    const sigma = m.param("sigma", logNormal(-0.5, 0.5));
    const B = add(identity(N), mul(sigma, d.C));
    m.observe(d.Y, multivariateNormal(constant(0, [N]), matmul(B, mT(B))));
  },
});

describe("a model with solve and logDeterminant at posterior size (40×40)", () => {
  const a = compileModel(changeOfVariables, dataValues);
  const b = compileModel(multiNormal, dataValues);
  const gradAt = (c: typeof a, q: number): number => {
    const [g] = grad(c.logDensity, [c.q]);
    return interpret([g as Node], { ...c.dataBindings, [c.q.attrs.name!]: [q] })[0]!.data[0]!;
  };

  test("its log density and gradient are multi_normal(0, B·Bᵀ)'s, up to the constant −M·N/2·log 2π", () => {
    const constantTerm = (-M * N * Math.log(2 * Math.PI)) / 2;
    for (const q of [-1.5, -0.8, -0.2, 0.3]) {
      expect(b.logDensityAt([q])).toBeCloseTo(a.logDensityAt([q]) + constantTerm, 8);
      expect(gradAt(a, q)).toBeCloseTo(gradAt(b, q), 7);
    }
  });

  test("NUTS on the CPU recovers sigma's posterior mean (4 chains × 400 draws, within 5 MCSE at ESS 200)", async () => {
    // The exact posterior mean and sd of sigma = e^q by quadrature of the unconstrained density over q.
    const grid = Array.from({ length: 1201 }, (_, k) => -3 + (k * 4) / 1200);
    const lp = grid.map((q) => a.logDensityAt([q]));
    const top = Math.max(...lp);
    const w = lp.map((l) => Math.exp(l - top));
    const z = w.reduce((s, x) => s + x, 0);
    const mean = grid.reduce((s, q, k) => s + Math.exp(q) * w[k]!, 0) / z;
    const sd = Math.sqrt(grid.reduce((s, q, k) => s + (Math.exp(q) - mean) ** 2 * w[k]!, 0) / z);
    const density = await modelDensity(a, { backend: "cpu" });
    const r = sample(density, { chains: 4, warmup: 300, draws: 400, seed: 2026 });
    let total = 0, count = 0;
    for (const chain of r.draws) {
      for (let i = 0; i < chain.length / a.dim; i++) {
        total += a.generatedAt(chain.subarray(i * a.dim, (i + 1) * a.dim))[0]!;
        count++;
      }
    }
    const got = total / count;
    expect(Math.abs(got - mean) / (sd / Math.sqrt(200)), `sigma: mean ${got} vs ${mean} (sd ${sd})`).toBeLessThan(5);
    // The data were drawn with sigma = 0.6: the posterior puts it within a few sd.
    expect(Math.abs(mean - SIGMA)).toBeLessThan(4 * sd);
  });
});
