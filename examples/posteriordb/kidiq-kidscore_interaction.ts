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
    const inter = d.mom_hs.mul(d.mom_iq);
    // Stan's beta[1] + beta[2] * mom_hs + beta[3] * mom_iq + beta[4] * inter: at is 1-based.
    const mu = beta.at(1).add(beta.at(2).mul(d.mom_hs)).add(beta.at(3).mul(d.mom_iq)).add(beta.at(4).mul(inter));
    m.observe(d.kid_score, normal(mu, sigma));
  },
});
