import { constant, log, logSoftmax, mul, square, sub, sum, exp, type Node, type Operand } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { logMassAtLevel, checkOperand } from "./helpers.ts";
import { sampleEvents } from "./sampling.ts";
import { categoricalVariate } from "./variates.ts";

/** Categorical over 1..K (1-based, as Stan) with probabilities `probs` (last axis K). */
export function categorical(probs: Operand): Distribution {
  checkOperand("categorical", "probs", probs);
  const p = vectorParam("categorical", "probs", probs);
  return categoricalOf("categorical", p, log(p), p);
}

/** Categorical over 1..K with unnormalized log-probabilities `logits` (last axis K). */
export function categoricalLogit(logits: Operand): Distribution {
  checkOperand("categoricalLogit", "logits", logits);
  const l = vectorParam("categoricalLogit", "logits", logits);
  // logSoftmax, not l − logsumexp(l): the likeliest level keeps its relative precision (−e^{−80}, not 0, for logits (40, −40)).
  const logp = logSoftmax(l);
  return categoricalOf("categorical_logit", l, logp, exp(logp));
}

function categoricalOf(name: string, param: Node, logp: Node, p: Node): Distribution {
  const k = param.shape[param.rank - 1]!;
  const batchShape = param.shape.slice(0, -1);
  const levels = constant(Array.from({ length: k }, (_, i) => i + 1), [k]);
  const meanOf = () => sum(mul(p, levels), -1);
  return {
    name,
    support: { kind: "int_interval", lower: 1, upper: k },
    discrete: true,
    batchShape,
    eventShape: [],
    // One-hot selection of log p[x] (it broadcasts over any batch of x and of the probabilities).
    logpdf: (x) => logMassAtLevel(x, logp, 1),
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, batchShape, [], [p], [1], bindings, (r, [w], out, o) => {
        out[o] = categoricalVariate(r, w!) + 1;
      }),
    mean: meanOf,
    variance: () => sub(sum(mul(p, square(levels)), -1), square(meanOf())),
  };
}

/** A parameter that must have a last (category) axis. */
export function vectorParam(dist: string, name: string, x: Operand): Node {
  checkOperand(dist, name, x);
  const n = lift(x);
  if (n.rank === 0) throw new ModelError(`${dist}: ${name} must be a vector (last axis = categories), got a scalar; pass a vector node or constant([...], [K])`);
  return n;
}

