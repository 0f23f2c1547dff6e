import { add, index, log, mul } from "@ppl/tensor";
import { data, model, normal, positive } from "@ppl/ppl";

/** log(earnings) on height, sex and their interaction; flat priors. */
export default model({
  name: "logearn_interaction",
  data: {
    N: data.int({ lower: 0 }),
    earn: data.vector("N", { lower: 0 }),
    height: data.vector("N", { lower: 0 }),
    male: data.vector("N", { lower: 0, upper: 1 }),
  },
  build(m, d) {
    const beta = m.param("beta", { shape: [4] });
    const sigma = m.param("sigma", { constraint: positive() });
    const b = (i: number) => index(beta, i);
    const inter = mul(d.height, d.male);
    const mu = add(add(add(b(0), mul(b(1), d.height)), mul(b(2), d.male)), mul(b(3), inter));
    m.observe(log(d.earn), normal(mu, sigma));
  },
});
