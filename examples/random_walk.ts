// A local-level time series: the level is a Gaussian random walk, y[t] ~ normal(level[t], tau),
// level = cumsum(sigma * z) with z ~ normal(0, 1) (non-centered, so that the sampler does not meet
// the funnel between sigma and the steps). The data (T = 200) are synthetic: sigma = 0.3, tau = 1.
// On a GPU a long walk's cumulative sums (in the density and, reversed, in its gradient) are
// scanned in blocks over workgroups, not walked by one thread a chain.
//   pnpm ppl sample examples/random_walk.ts --data examples/random_walk.json
import { data, halfNormal, model, normal } from "@ppl/ppl";

export default model({
  name: "random_walk",
  data: { T: data.int({ lower: 1 }), y: data.vector("T") },
  build(m, d) {
    const sigma = m.param("sigma", halfNormal(1));
    const tau = m.param("tau", halfNormal(1));
    const z = m.param("z", normal(0, 1), { shape: [d.T] });
    m.observe(d.y, normal(m.deterministic("level", sigma.mul(z).cumsum(0)), tau));
  },
});
