// Varying intercepts: y[i] ~ normal(a[group[i]] + b * x[i], sigma), with the G group intercepts
// drawn from normal(mu_a, sigma_a). Non-centered (a = mu_a + sigma_a * a_raw) so that the sampler
// does not meet the funnel when the groups carry little information. Each observation picks its
// group's intercept with a.at(d.group), Stan's a[group]: group is 1-based in the data, as is at.
// The data (N = 120, G = 8) are synthetic: mu_a = 2, sigma_a = 1.5, b = 0.7, sigma = 1.
//   pnpm ppl sample examples/hierarchical.ts --data examples/hierarchical.json
import { data, halfNormal, model, normal } from "@ppl/ppl";

export default model({
  name: "hierarchical_intercepts",
  data: {
    N: data.int({ lower: 0 }),
    G: data.int({ lower: 1 }),
    group: data.intVector("N", { lower: 1 }),
    x: data.vector("N"),
    y: data.vector("N"),
  },
  build(m, d) {
    const muA = m.param("mu_a", normal(0, 5));
    const sigmaA = m.param("sigma_a", halfNormal(2.5));
    const aRaw = m.param("a_raw", normal(0, 1), { shape: [d.G] });
    const b = m.param("b", normal(0, 2.5));
    const sigma = m.param("sigma", halfNormal(2.5));
    const a = m.deterministic("a", muA.add(sigmaA.mul(aRaw)));
    m.observe(d.y, normal(a.at(d.group).add(b.mul(d.x)), sigma));
  },
});
