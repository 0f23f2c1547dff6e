import { data, halfCauchy, model, normal } from "@ppl/ppl";

/** Eight schools, non-centred: theta = mu + tau · theta_trans. */
export default model({
  name: "eight_schools_noncentered",
  data: { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) },
  build(m, d) {
    const mu = m.param("mu", normal(0, 5));
    const tau = m.param("tau", halfCauchy(0, 5));
    const thetaTrans = m.param("theta_trans", normal(0, 1), { shape: [d.J] });
    const theta = m.deterministic("theta", mu.add(tau.mul(thetaTrans)));
    m.observe(d.y, normal(theta, d.sigma));
  },
});
