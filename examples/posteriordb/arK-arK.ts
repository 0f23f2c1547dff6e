import { stack } from "@ppl/tensor";
import { data, halfCauchy, model, normal } from "@ppl/ppl";

/** Autoregressive model of order K: y[t] ~ normal(alpha + Σ_k beta[k]·y[t−k], sigma) for t > K. */
export default model({
  name: "arK",
  data: { K: data.int({ lower: 0 }), T: data.int({ lower: 0 }), y: data.vector("T") },
  build(m, d) {
    const alpha = m.param("alpha", normal(0, 10));
    const beta = m.param("beta", normal(0, 10), { shape: [d.K] });
    const sigma = m.param("sigma", halfCauchy(0, 2.5));
    // Lag matrix [T−K, K]: column k holds y[t−k] for t = K+1..T, i.e. y[(K+1−k):(T−k)] (1-based, as range is).
    const lags = stack(Array.from({ length: d.K }, (_, j) => d.y.range(d.K - j, d.T - j - 1)), 1);
    m.observe(d.y.range(d.K + 1), normal(alpha.add(lags.matmul(beta)), sigma));
  },
});
