import { eye } from "@ppl/tensor";
import { data, gamma, halfNormal, model, normal, poissonLog } from "@ppl/ppl";

/** Latent Gaussian process with a squared-exponential kernel and Poisson counts. */
export default model({
  name: "gp_pois_regr",
  data: {
    N: data.int({ lower: 1 }),
    x: data.vector("N"),
    k: data.intVector("N", { lower: 0 }),
    // Present in the posteriordb data file; the model does not use it.
    y: data.vector("N"),
  },
  build(m, d) {
    const rho = m.param("rho", gamma(25, 4));
    const alpha = m.param("alpha", halfNormal(0, 2));
    const fTilde = m.param("f_tilde", normal(0, 1), { shape: [d.N] });
    const diff = d.x.reshape([d.N, 1]).sub(d.x.reshape([1, d.N]));
    // K = alpha² exp(−diff² / (2 rho²)) + 1e-10 I
    const K = alpha.square().mul(diff.square().div(rho.square().mul(-2)).exp()).add(eye(d.N).mul(1e-10));
    const f = m.deterministic("f", K.cholesky().matmul(fTilde));
    m.observe(d.k, poissonLog(f));
  },
});
