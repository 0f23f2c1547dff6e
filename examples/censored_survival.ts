// Survival with right censoring: patients in G groups are followed until an event or until their
// follow-up ends. t[i] is the time of the event, or the end of follow-up where censored[i] = 1,
// which says only that the event comes later: the observation is right-censored at t[i] and
// contributes P(T ≥ t[i]) (the exponential's lccdf) instead of the density. Event times are
// exponential with a rate per group and a gamma prior, so the posterior of each rate is again a
// gamma: Gamma(2 + events, 10 + total time at risk), which the CLI test checks the draws against.
// The data (N = 60, G = 2) are synthetic: rates 0.15 and 0.08, follow-up uniform on [4, 14].
//   pnpm ppl sample examples/censored_survival.ts --data examples/censored_survival.json
import { data, exponential, gamma, model } from "@ppl/ppl";

export default model({
  name: "censored_survival",
  data: {
    N: data.int({ lower: 1 }),
    G: data.int({ lower: 1 }),
    group: data.intVector("N", { lower: 1 }),
    t: data.vector("N", { lower: 0 }),
    censored: data.intVector("N", { lower: 0, upper: 1 }),
  },
  build(m, d) {
    const rate = m.param("rate", gamma(2, 10), { shape: [d.G] });
    const r = rate.at(d.group); // each patient's group rate; group is 1-based, as is at
    // A censored time is an upper limit of what was seen; the others have none (+∞).
    const limit = d.censored.eq(1).select(d.t, Infinity);
    m.observeCensored(d.t, exponential(r), { upper: limit });
  },
});
