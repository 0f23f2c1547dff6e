import { constant, scan, stack } from "@ppl/tensor";
import { data, model, normal, positiveOrdered, simplex } from "@ppl/ppl";

/** Two-state hidden Markov model with normal emissions, marginalized by the forward algorithm. */
export default model({
  name: "hmm_example",
  data: { N: data.int({ lower: 1 }), K: data.int({ lower: 1 }), y: data.vector("N") },
  build(m, d) {
    const theta1 = m.param("theta1", { shape: [d.K], constraint: simplex() });
    const theta2 = m.param("theta2", { shape: [d.K], constraint: simplex() });
    const mu = m.param("mu", normal(constant([3, 10], [2]), 1), { shape: [d.K], constraint: positiveOrdered() });
    const logTheta = stack([theta1, theta2]).log(); // [from, to]
    // Emission log densities [N, K]: y[t] under each state's mean.
    const emit = normal(mu, 1).logpdf(d.y.reshape([d.N, 1]));
    const { carry } = scan(
      ([gamma], [e]) => ({ carry: [gamma!.reshape([d.K, 1]).add(logTheta).logsumexp(0).add(e!)] }),
      [emit.at(1)], // the first step's emissions, 1-based
      [emit.range(2)], // and the rest, steps 2..N
    );
    m.factor(carry[0]!.logsumexp());
  },
});
