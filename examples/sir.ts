// An SIR epidemic: susceptible, infected and recovered fractions of a closed population of N,
// dS/dt = −β·S·I, dI/dt = β·S·I − γ·I, dR/dt = γ·I from one infected person, solved by RK45 at
// Stan's default tolerances; the daily count of people in bed is negative binomial about N·I(t).
// The priors are those of Stan's case study of the 1978 boarding-school influenza outbreak; the
// data (examples/sir.json, N = 763, 14 days) are synthetic, made by examples/sir-data.ts with
// β = 1.7, γ = 0.5, φ = 8.
// A random initial point with γ well above β makes I(t) fall to 1e-30 and below within the two weeks:
// the solver resolves such a fall relative to I itself, or fails and the point is rejected, so
// that no chain starts where the gradient does not follow the density.
//   pnpm ppl sample examples/sir.ts --data examples/sir.json
import { odeRK45, reshape, slice, stack, type OdeRhs } from "@ppl/tensor";
import { data, exponential, model, negativeBinomial2, normal, positive } from "@ppl/ppl";

const sir: OdeRhs = (_t, y, [rates]) => {
  const [s, i] = [y.at(1), y.at(2)];
  const [beta, gamma] = [rates!.at(1), rates!.at(2)];
  const infection = beta.mul(s).mul(i), recovery = gamma.mul(i);
  return stack([infection.neg(), infection.sub(recovery), recovery]);
};

/** The SIR model with negative-binomial daily counts. */
export default model({
  name: "sir",
  data: { N: data.real({ lower: 1 }), T: data.int({ lower: 1 }), ts: data.vector("T"), cases: data.intVector("T", { lower: 0 }) },
  build(m, d) {
    const beta = m.param("beta", normal(2, 1), { constraint: positive() });
    const gamma = m.param("gamma", normal(0.4, 0.5), { constraint: positive() });
    const phiInv = m.param("phi_inv", exponential(5));
    const i0 = d.N.reciprocal();
    const y = odeRK45(sir, stack([i0.neg().add(1), i0, i0.mul(0)]), 0, d.ts, [stack([beta, gamma])], { maxSteps: 200 });
    // I(t), the state's second column (slice takes 0-based positions).
    const infected = reshape(slice(y, [undefined, { start: 1, stop: 2 }]), [d.T]);
    m.deterministic("R0", beta.div(gamma));
    m.observe(d.cases, negativeBinomial2(infected.mul(d.N), phiInv.reciprocal()));
  },
});
