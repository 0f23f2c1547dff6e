import { data, halfNormal, model, normal } from "@ppl/ppl";

/** Bayesian linear regression: y ~ normal(X·beta, sigma). */
export default model({
  name: "blr",
  data: { N: data.int({ lower: 0 }), D: data.int({ lower: 0 }), X: data.matrix("N", "D"), y: data.vector("N") },
  build(m, d) {
    const beta = m.param("beta", normal(0, 10), { shape: [d.D] });
    const sigma = m.param("sigma", halfNormal(0, 10));
    m.observe(d.y, normal(d.X.matmul(beta), sigma));
  },
});
