import { sub } from "@ppl/tensor";
import { beta, data, halfNormal, mixture, model, normal, ordered } from "@ppl/ppl";

/** Two-component normal mixture with ordered means. */
export default model({
  name: "low_dim_gauss_mix",
  data: { N: data.int({ lower: 0 }), y: data.vector("N") },
  build(m, d) {
    const mu = m.param("mu", normal(0, 2), { shape: [2], constraint: ordered() });
    const sigma = m.param("sigma", halfNormal(0, 2), { shape: [2] });
    const theta = m.param("theta", beta(5, 5));
    // One normal with a component axis of 2: mu and sigma are [2].
    m.observe(d.y, mixture([theta, sub(1, theta)], normal(mu, sigma)));
  },
});
