import { concat, scan, sub } from "@ppl/tensor";
import { data, interval, model, normal, positive, unitInterval } from "@ppl/ppl";

/** GARCH(1,1) volatility: sigma[t]² = alpha0 + alpha1·(y[t−1] − mu)² + beta1·sigma[t−1]², with beta1 < 1 − alpha1. */
export default model({
  name: "garch11",
  data: { T: data.int({ lower: 0 }), y: data.vector("T"), sigma1: data.real({ lower: 0 }) },
  build(m, d) {
    const mu = m.param("mu");
    const alpha0 = m.param("alpha0", { constraint: positive() });
    const alpha1 = m.param("alpha1", { constraint: unitInterval() });
    const beta1 = m.param("beta1", { constraint: interval(0, sub(1, alpha1)) });
    const { ys } = scan(
      ([s], [yPrev]) => {
        const next = alpha0.add(alpha1.mul(yPrev!.sub(mu).square())).add(beta1.mul(s!.square())).sqrt();
        return { carry: [next], ys: [next] };
      },
      [d.sigma1],
      [d.y.range(1, d.T - 1)], // y[1:(T−1)], the previous step's y
    );
    const sigma = concat([d.sigma1.reshape([1]), ys[0]!]);
    m.observe(d.y, normal(mu, sigma));
  },
});
