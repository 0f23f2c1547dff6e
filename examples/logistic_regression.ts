// Logistic regression: y ~ bernoulli_logit(alpha + X·beta), with the linear predictor on the logit
// scale. The data (N = 200, K = 3) are synthetic: alpha = -0.5, beta = (1.2, -0.8, 0.3).
//   pnpm ppl sample examples/logistic_regression.ts --data examples/logistic_regression.json
import { bernoulliLogit, data, model, normal } from "@ppl/ppl";

export default model({
  name: "logistic_regression",
  data: {
    N: data.int({ lower: 0 }),
    K: data.int({ lower: 1 }),
    X: data.matrix("N", "K"),
    y: data.intVector("N", { lower: 0, upper: 1 }),
  },
  build(m, d) {
    const alpha = m.param("alpha", normal(0, 2.5));
    const beta = m.param("beta", normal(0, 2.5), { shape: [d.K] });
    m.observe(d.y, bernoulliLogit(alpha.add(d.X.matmul(beta))));
  },
});
