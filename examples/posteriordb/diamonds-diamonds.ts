import { slice } from "@ppl/tensor";
import { data, halfStudentT, model, normal, studentT } from "@ppl/ppl";

/** Diamond prices: linear regression on 24 centred predictors (brms-style), Student-t priors on intercept and scale. */
export default model({
  name: "diamonds",
  data: {
    N: data.int({ lower: 1 }),
    Y: data.vector("N"),
    K: data.int({ lower: 1 }),
    X: data.matrix("N", "K"),
    prior_only: data.int({ lower: 0, upper: 1 }),
  },
  build(m, d) {
    // Columns 2..K (0-based slice from 1), centred (column 1 is the intercept).
    const Xraw = slice(d.X, [undefined, { start: 1 }]);
    const Xc = Xraw.sub(Xraw.mean(0, true));
    const b = m.param("b", normal(0, 1), { shape: [d.K - 1] });
    const intercept = m.param("Intercept", studentT(3, 8, 10));
    const sigma = m.param("sigma", halfStudentT(3, 0, 10));
    if (d.prior_only === 0) m.observe(d.Y, normal(intercept.add(Xc.matmul(b)), sigma));
  },
});
