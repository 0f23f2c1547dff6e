import { add, index, mul } from "@ppl/tensor";
import { data, halfCauchy, model, normal } from "@ppl/ppl";

/** Kid's test score on mother's IQ, high-school completion and their interaction; flat priors on beta. */
export default model({
  name: "kidscore_interaction",
  data: {
    N: data.int({ lower: 0 }),
    kid_score: data.vector("N", { lower: 0, upper: 200 }),
    mom_iq: data.vector("N", { lower: 0, upper: 200 }),
    mom_hs: data.vector("N", { lower: 0, upper: 1 }),
    // Present in the posteriordb data file, for predictions; the model does not use them.
    mom_hs_new: data.real(),
    mom_iq_new: data.real(),
  },
  build(m, d) {
    const beta = m.param("beta", { shape: [4] });
    const sigma = m.param("sigma", halfCauchy(0, 2.5));
    const inter = mul(d.mom_hs, d.mom_iq);
    const b = (i: number) => index(beta, i);
    const mu = add(add(add(b(0), mul(b(1), d.mom_hs)), mul(b(2), d.mom_iq)), mul(b(3), inter));
    m.observe(d.kid_score, normal(mu, sigma));
  },
});
