import { gpExpQuadCov, identity } from "@ppl/tensor";
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
    // Stan's cov_exp_quad(x, alpha, rho) + diag_matrix(rep_vector(1e-10, N)).
    const K = gpExpQuadCov(d.x, alpha, rho).add(identity(d.N).mul(1e-10));
    const f = m.deterministic("f", K.cholesky().matmul(fTilde));
    m.observe(d.k, poissonLog(f));
  },
});
