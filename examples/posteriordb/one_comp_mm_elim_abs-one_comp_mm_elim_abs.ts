import { constant, gt, odeRK45, select, stack, type Node } from "@ppl/tensor";
import { data, halfCauchy, logNormal, model } from "@ppl/ppl";

/**
 * One-compartment pharmacokinetics, first-order absorption and Michaelis–Menten elimination:
 * dC/dt = exp(−k_a·t)·D·k_a/V − (V_m/V)·C/(K_m + C), the dose term 0 at t = 0 as in posteriordb's Stan code.
 * The reference used a stiff (BDF) solver; the problem is not stiff over the posterior, and RK45
 * at tight tolerances solves it to well below the noise (σ ≈ 0.13 on the log scale). The reference
 * draws take at most 15 attempts between two output times; 100 leave room, and 4 chains' interval
 * scans stay inside llvmpipe's loop cap (136 fit: packages/vulkan/src/codegen/scan-budget.ts).
 */
export default model({
  name: "one_comp_mm_elim_abs",
  data: {
    t0: data.real(),
    D: data.real({ lower: 0 }),
    V: data.real({ lower: 0 }),
    N_t: data.int({ lower: 1 }),
    times: data.vector("N_t"),
    C_hat: data.vector("N_t", { lower: 0 }),
  },
  build(m, d) {
    const kA = m.param("k_a", halfCauchy(0, 1));
    const kM = m.param("K_m", halfCauchy(0, 1));
    const vM = m.param("V_m", halfCauchy(0, 1));
    const sigma = m.param("sigma", halfCauchy(0, 1));
    const rhs = (t: Node, y: Node, [theta]: Node[]): Node => {
      const [ka, Km, Vm] = [theta!.at(1), theta!.at(2), theta!.at(3)];
      const dose = select(gt(t, 0), t.mul(ka.neg()).exp().mul(d.D).mul(ka).div(d.V), 0);
      return dose.sub(Vm.div(d.V).mul(y).div(Km.add(y)));
    };
    const C = odeRK45(rhs, constant([0], [1]), d.t0, d.times, [stack([kA, kM, vM])], { rtol: 1e-7, atol: 1e-7, maxSteps: 100 });
    m.observe(d.C_hat, logNormal(C.reshape([d.N_t]).log(), sigma));
  },
});
