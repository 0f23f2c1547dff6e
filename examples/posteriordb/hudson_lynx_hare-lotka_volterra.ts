import { constant, odeRK45, stack, type OdeRhs } from "@ppl/tensor";
import { data, logNormal, model, normal, positive } from "@ppl/ppl";

// du/dt = (α − β·v)·u, dv/dt = (−γ + δ·u)·v: prey u, predators v, theta = (α, β, γ, δ).
const lotkaVolterra: OdeRhs = (_t, z, [theta]) => {
  const [u, v] = [z.at(1), z.at(2)];
  const [alpha, beta, gamma, delta] = [1, 2, 3, 4].map((i) => theta!.at(i));
  return stack([alpha!.sub(beta!.mul(v)).mul(u), gamma!.neg().add(delta!.mul(u)).mul(v)]);
};

/** Lotka–Volterra predator–prey dynamics of the Hudson's Bay lynx and hare pelts, solved by RK45. */
export default model({
  name: "lotka_volterra",
  data: { N: data.int({ lower: 0 }), ts: data.vector("N"), y_init: data.vector(2, { lower: 0 }), y: data.matrix("N", 2, { lower: 0 }) },
  build(m, d) {
    const theta = m.param("theta", normal(constant([1, 0.05, 1, 0.05], [4]), constant([0.5, 0.05, 0.5, 0.05], [4])), {
      shape: [4],
      constraint: positive(),
    });
    const zInit = m.param("z_init", logNormal(Math.log(10), 1), { shape: [2] });
    const sigma = m.param("sigma", logNormal(-1, 1), { shape: [2] });
    // Tighter than the reference's rk45 (rtol 1e-5, atol 1e-3), so the states are exact to well
    // below the noise (σ ≈ 0.25 on the log scale). The reference draws take at most 8 attempts
    // between two output times, but the way from a random initial point is longer: states that keep
    // their sign are resolved relative to themselves however small they get, and near a fast-cycling
    // minor mode (theta ≈ (1.5, 0.43, 2.3, 0.39)) 31 of 60 points needed more than 30 attempts, 13
    // more than 37, none more than 100. With 30 a chain of seed 1 stayed in that mode, walled in by
    // failed solves (every transition divergent); with 100 seed 1 passes. llvmpipe's loop cap fits
    // 37 for 4 chains (packages/vulkan/src/codegen/scan-budget.ts): there, batch fewer chains.
    const z = odeRK45(lotkaVolterra, zInit, 0, d.ts, [theta], { rtol: 1e-6, atol: 1e-5, maxSteps: 100 });
    m.observe(d.y_init, logNormal(zInit.log(), sigma));
    m.observe(d.y, logNormal(z.log(), sigma));
  },
});
