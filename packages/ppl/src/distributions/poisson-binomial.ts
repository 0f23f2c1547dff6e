import {
  add, and, broadcastTo, concat, constant, eq, ge, le, lift, log, log1p, logsumexp, mul, neg, reshape, select, slice, stack, sub, sum, type Node, type Operand,
} from "@ppl/tensor";
import { vectorParam } from "./categorical.ts";
import type { Distribution } from "./distribution.ts";
import { restrict } from "./helpers.ts";
import { sampleEvents } from "./sampling.ts";

// Stands for log 0 in the recursion: finite (so that logsumexp of two such entries stays finite in f32 too) and far below any log-probability.
const LOG_ZERO = -1e30;

/**
 * Stan's poisson_binomial(theta): the number of successes among N independent trials with success
 * probabilities theta (last axis N). The mass function is the recursion over trials
 * log P_i(k) = logaddexp(log P_{i−1}(k) + log(1 − θ_i), log P_{i−1}(k − 1) + log θ_i), in logs.
 */
export function poissonBinomial(theta: Operand): Distribution {
  const t = vectorParam("poissonBinomial", "theta", theta);
  const n = t.shape[t.rank - 1]!;
  const batchShape = t.shape.slice(0, -1);
  const lead = batchShape.map(() => undefined);
  const logT = log(t), log1mT = log1p(neg(t));
  // log P over 0..N after all trials, shape [...batch, N + 1].
  let logP: Node = broadcastTo(constant([0, ...Array<number>(n).fill(LOG_ZERO)], [n + 1]), [...batchShape, n + 1]);
  const none = broadcastTo(constant([LOG_ZERO], [1]), [...batchShape, 1]);
  for (let i = 0; i < n; i++) {
    const lt = slice(logT, [...lead, { start: i, stop: i + 1 }]);
    const l1 = slice(log1mT, [...lead, { start: i, stop: i + 1 }]);
    // P_{i−1}(k − 1) on the counts' axis: shifted up by one, with log 0 for k = 0.
    const shifted = concat([none, slice(logP, [...lead, { start: 0, stop: n }])], -1);
    const stay = add(logP, l1);
    const move = add(shifted, lt);
    logP = logsumexp(stack([stay, move], -1), -1);
  }
  const levels = constant(Array.from({ length: n + 1 }, (_, k) => k), [n + 1]);
  return {
    name: "poisson_binomial",
    support: { kind: "int_interval", lower: 0, upper: n },
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (y) => {
      const yn = lift(y);
      const hit = eq(reshape(yn, [...yn.shape, 1]), levels);
      return restrict(and(ge(yn, 0), le(yn, n)), sum(select(hit, logP, 0), -1));
    },
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, batchShape, [], [t], [1], bindings, (r, [p], out, o) => {
        let k = 0;
        for (let i = 0; i < n; i++) if (r.uniform() < p![i]!) k++;
        out[o] = k;
      }),
    mean: () => sum(t, -1),
    variance: () => sum(mul(t, sub(1, t)), -1),
  };
}
