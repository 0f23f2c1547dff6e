// Linear regression on K predictors: y ~ normal(alpha + X·beta, sigma), weakly informative priors.
// The data (N = 100, K = 3) are synthetic: alpha = 1.5, beta = (2, -1, 0.5), sigma = 0.8.
//   pnpm ppl sample examples/linear_regression.ts --data examples/linear_regression.json
import { data, halfNormal, model, normal } from "@ppl/ppl";

export default model({
  name: "linear_regression",
  data: {
    N: data.int({ lower: 0 }),
    K: data.int({ lower: 1 }),
    X: data.matrix("N", "K"),
    y: data.vector("N"),
  },
  build(m, d) {
    const alpha = m.param("alpha", normal(0, 10));
    const beta = m.param("beta", normal(0, 5), { shape: [d.K] });
    const sigma = m.param("sigma", halfNormal(5));
    m.observe(d.y, normal(alpha.add(d.X.matmul(beta)), sigma));
  },
});
