import { data, model, normal, positive } from "@ppl/ppl";

/** log(earnings) on height, sex and their interaction; flat priors. */
export default model({
  name: "logearn_interaction",
  data: {
    N: data.int({ lower: 0 }),
    earn: data.vector("N", { lower: 0 }),
    height: data.vector("N", { lower: 0 }),
    male: data.vector("N", { lower: 0, upper: 1 }),
  },
  build(m, d) {
    const beta = m.param("beta", { shape: [4] });
    const sigma = m.param("sigma", { constraint: positive() });
    const inter = d.height.mul(d.male);
    // Stan's beta[1] + beta[2] * height + beta[3] * male + beta[4] * inter: at is 1-based.
    const mu = beta.at(1).add(beta.at(2).mul(d.height)).add(beta.at(3).mul(d.male)).add(beta.at(4).mul(inter));
    m.observe(d.earn.log(), normal(mu, sigma));
  },
});
