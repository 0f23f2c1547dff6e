import {
  add, broadcastTo, concat, constant, log, log1p, logsumexp, mul, neg, reshape, scan, slice, stack, sub, sum, transpose,
  type Node, type Operand,
} from "@ppl/tensor";
import { vectorParam } from "./categorical.ts";
import type { Distribution } from "./distribution.ts";
import { logMassAtLevel, checkOperand } from "./helpers.ts";
import { logMassSum } from "./mass-sums.ts";
import { sampleEvents } from "./sampling.ts";

// Stands for log 0 in the recursion: finite (so that logsumexp of two such entries stays finite in f32 too) and far below any log-probability.
const LOG_ZERO = -1e30;

/**
 * Stan's poisson_binomial(theta): the number of successes among N independent trials with success
 * probabilities theta (last axis N). The mass function is the recursion over trials
 * log P_i(k) = logaddexp(log P_{i−1}(k) + log(1 − θ_i), log P_{i−1}(k − 1) + log θ_i), in logs, as a scan.
 */
export function poissonBinomial(theta: Operand): Distribution {
  checkOperand("poissonBinomial", "theta", theta);
  const t = vectorParam("poissonBinomial", "theta", theta);
  const n = t.shape[t.rank - 1]!;
  const batchShape = t.shape.slice(0, -1);
  const lead = batchShape.map(() => undefined);
  // The trials on a leading axis, for a scan over them: one traced step, so the graph (and each
  // shader) stays the same size whatever N is.
  const trialsFirst = (x: Node) => transpose(x, [x.rank - 1, ...x.shape.slice(0, -1).map((_, i) => i)]);
  const axis = (x: Node) => reshape(x, [...x.shape, 1]);
  const init = broadcastTo(constant([0, ...Array<number>(n).fill(LOG_ZERO)], [n + 1]), [...batchShape, n + 1]);
  const none = broadcastTo(constant([LOG_ZERO], [1]), [...batchShape, 1]);
  const { carry } = scan(
    ([logP], [lt, l1], [zero]) => {
      // P_{i−1}(k − 1) on the counts' axis: shifted up by one, with log 0 for k = 0.
      const shifted = concat([zero!, slice(logP!, [...lead, { start: 0, stop: n }])], -1);
      return { carry: [logsumexp(stack([add(logP!, axis(l1!)), add(shifted, axis(lt!))], -1), -1)] };
    },
    [init],
    [trialsFirst(log(t)), trialsFirst(log1p(neg(t)))],
    [none],
  );
  // log P over 0..N after all trials, shape [...batch, N + 1].
  const logP = carry[0]!;
  return {
    name: "poisson_binomial",
    support: { kind: "int_interval", lower: 0, upper: n },
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (y) => logMassAtLevel(y, logP, 0),
    // Sums of the mass table over the counts at or below ⌊y⌋ (lcdf) and above it (lccdf), each in
    // logs over its own side, so that neither tail is a difference.
    lcdf: (y) => logMassSum(y, () => logP, n + 1, n, true),
    lccdf: (y) => logMassSum(y, () => logP, n + 1, n, false),
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
