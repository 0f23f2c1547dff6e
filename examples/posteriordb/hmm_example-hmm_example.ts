import { add, constant, log, logsumexp, reshape, scan, slice, stack } from "@ppl/tensor";
import { data, model, normal, positiveOrdered, simplex } from "@ppl/ppl";

/** Two-state hidden Markov model with normal emissions, marginalized by the forward algorithm. */
export default model({
  name: "hmm_example",
  data: { N: data.int({ lower: 1 }), K: data.int({ lower: 1 }), y: data.vector("N") },
  build(m, d) {
    const theta1 = m.param("theta1", { shape: [d.K], constraint: simplex() });
    const theta2 = m.param("theta2", { shape: [d.K], constraint: simplex() });
    const mu = m.param("mu", normal(constant([3, 10], [2]), 1), { shape: [d.K], constraint: positiveOrdered() });
    const logTheta = log(stack([theta1, theta2])); // [from, to]
    // Emission log densities [N, K]: y[t] under each state's mean.
    const emit = normal(mu, 1).logpdf(reshape(d.y, [d.N, 1]));
    const { carry } = scan(
      ([gamma], [e]) => ({ carry: [add(logsumexp(add(reshape(gamma!, [d.K, 1]), logTheta), 0), e!)] }),
      [reshape(slice(emit, [{ stop: 1 }]), [d.K])],
      [slice(emit, [{ start: 1 }])],
    );
    m.factor(logsumexp(carry[0]!));
  },
});
