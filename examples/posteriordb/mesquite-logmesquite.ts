import { stack } from "@ppl/tensor";
import { data, model, normal, positive } from "@ppl/ppl";

/** log(weight) of mesquite bushes on the logs of five size measures and the group; flat priors. */
export default model({
  name: "logmesquite",
  data: {
    N: data.int({ lower: 0 }),
    weight: data.vector("N"),
    diam1: data.vector("N"),
    diam2: data.vector("N"),
    canopy_height: data.vector("N"),
    total_height: data.vector("N"),
    density: data.vector("N"),
    group: data.vector("N"),
  },
  build(m, d) {
    const beta = m.param("beta", { shape: [7] });
    const sigma = m.param("sigma", { constraint: positive() });
    // Predictors as columns, in beta[2..7]'s order.
    const X = stack([d.diam1.log(), d.diam2.log(), d.canopy_height.log(), d.total_height.log(), d.density.log(), d.group], 1);
    // Stan's beta[1] + X * beta[2:7]: at and range are 1-based.
    const mu = beta.at(1).add(X.matmul(beta.range(2)));
    m.observe(d.weight.log(), normal(mu, sigma));
  },
});
