import {
  add, and, cast, concat, constant, eq, exp, expm1, gather, ge, gt, le, log, logSigmoid, lt, maximum, min, minimum, mul, neg, reshape,
  select, slice, softplus, square, sub, sum,
  type Node, type Operand,
} from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Rng } from "../random/rng.ts";
import type { Distribution } from "./distribution.ts";
import { eventBatchShape } from "./helpers-events.ts";
import { logMassAtLevel, restrict, shapeOf, checkOperand } from "./helpers.ts";
import { sampleEvents } from "./sampling.ts";

/**
 * Stan's ordered_logistic(eta, c): y ∈ 1..K with P(y ≤ k) = logit⁻¹(c_k − eta), for K − 1 increasing
 * cutpoints c (last axis); −∞ where the cutpoints are not strictly increasing.
 */
export function orderedLogistic(eta: Operand, cutpoints: Operand): Distribution {
  checkOperand("orderedLogistic", "eta", eta);
  checkOperand("orderedLogistic", "cutpoints", cutpoints);
  return orderedOf("ordered_logistic", "orderedLogistic", eta, cutpoints, {
    lowest: (d) => logSigmoid(neg(d)),
    highest: (d) => logSigmoid(d),
    // log(σ(a) − σ(b)) = b + log(e^{a−b} − 1) − softplus(a) − softplus(b): no difference of rounded probabilities.
    between: (a, b) => sub(sub(add(b, log(expm1(sub(a, b)))), softplus(a)), softplus(b)),
    latent: (r) => {
      const u = r.uniform();
      return Math.log(u / (1 - u));
    },
  });
}

/** How an ordinal model's category probabilities come from d_k = eta − c_k, and the latent noise that generates it. */
export interface OrderedLink {
  /** log P(y = 1) from d_1. */
  lowest(d: Node): Node;
  /** log P(y = K) from d_{K−1}. */
  highest(d: Node): Node;
  /** log P(y = k) from a = d_{k−1} > b = d_k. */
  between(a: Node, b: Node): Node;
  /** A draw of the latent noise: y = 1 + #{k : eta + noise > c_k}. */
  latent(rng: Rng): number;
}

/** An ordinal distribution over 1..K with cutpoints on the last axis and the given link. */
export function orderedOf(name: string, fn: string, eta: Operand, cutpoints: Operand, link: OrderedLink): Distribution {
  const c = lift(cutpoints);
  if (c.rank === 0 || c.shape[c.rank - 1]! < 1) {
    throw new ModelError(`${fn}: the cutpoints must be a vector of K − 1 ≥ 1 increasing values (last axis), got shape [${c.shape.join(",")}]`);
  }
  const m = c.shape[c.rank - 1]!;
  const k = m + 1;
  const batchShape = eventBatchShape(fn, { eta: [shapeOf(eta), 0], cutpoints: [c.shape, 1] });
  const e = lift(eta);
  const d = sub(reshape(e, [...e.shape, 1]), c);
  // The middle categories as one vector op over d_{1..K−2} and d_{2..K−1}, so the graph does not grow with K.
  const between = m < 2 ? [] : [link.between(sliceLast(d, 0, m - 1), sliceLast(d, 1, m))];
  const logp = concat([link.lowest(sliceLast(d, 0, 1)), ...between, link.highest(sliceLast(d, m - 1, m))], -1);
  const ordered = m < 2 ? undefined : gt(min(sub(sliceLast(c, 1, m), sliceLast(c, 0, m - 1)), -1), 0);
  const levels = constant(Array.from({ length: k }, (_, i) => i + 1), [k]);
  const meanOf = () => sum(mul(exp(logp), levels), -1);
  return {
    name,
    support: { kind: "int_interval", lower: 1, upper: k },
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (y) => (c.rank === 1 ? logMassOfLevel(y, e, c, link, ordered) : logMassAtLevel(y, logp, 1, ordered)),
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, batchShape, [], [eta, c], [0, 1], bindings, (r, [ev, cv], out, o) => {
        const ystar = ev![0]! + link.latent(r);
        let y = 1;
        for (let i = 0; i < m; i++) if (ystar > cv![i]!) y++;
        out[o] = y;
      }),
    mean: meanOf,
    variance: () => sub(sum(mul(exp(logp), square(levels)), -1), square(meanOf())),
  };
}

/**
 * log P(y) from the observed level's own cutpoints (Stan's form), for one vector of cutpoints:
 * d_{y−1} and d_y gathered per element, so only that level's probability and its gradient are
 * computed (the table of every level, read through a one-hot mask, costs K times the work).
 * Levels 1 and K read one cutpoint; the middle formula is given a safe pair there (d + 1, d), so
 * its unused value and gradient stay finite. −∞ outside 1..K or where `valid` is false.
 */
function logMassOfLevel(y: Operand, e: Node, c: Node, link: OrderedLink, valid: Node | undefined): Node {
  const k = c.shape[0]! + 1;
  const yn = lift(y);
  // 0-based indices of c_{y−1} and c_y, clamped into the cutpoints (they read only data).
  const below = cast(sub(minimum(maximum(yn, 2), k), 2), "i32");
  const above = cast(sub(minimum(maximum(yn, 1), k - 1), 1), "i32");
  const a = sub(e, gather(c, below)), b = sub(e, gather(c, above));
  let value = select(eq(yn, k), link.highest(a), link.between(select(and(gt(yn, 1), lt(yn, k)), a, add(b, 1)), b));
  if (k === 2) value = link.highest(a);
  value = select(eq(yn, 1), link.lowest(b), value);
  const inRange = and(ge(yn, 1), le(yn, k));
  return restrict(valid ? and(inRange, valid) : inRange, value);
}

function sliceLast(x: Node, start: number, stop: number): Node {
  return slice(x, [...x.shape.slice(0, -1).map(() => undefined), { start, stop }]);
}
