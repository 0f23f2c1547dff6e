import { add, broadcastTo, log, logsumexp, mul, reshape, square, stack, sub, sum, type Node, type Operand } from "@ppl/tensor";
import { broadcastIndex, broadcastShapes, lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import { isDistribution, type Distribution } from "./distribution.ts";
import { checkOperand } from "./helpers.ts";
import { describeValue } from "../model/arguments.ts";
import { evalOperands } from "./sampling.ts";
import { categoricalVariate } from "./variates.ts";

/**
 * Finite mixture: log p(x) = logsumexp_k(log w_k + log p_k(x)). Components are a list of scalar
 * distributions, or one scalar distribution whose last batch axis indexes the components.
 */
export function mixture(weights: Operand | readonly Operand[], components: Distribution | readonly Distribution[]): Distribution {
  if (Array.isArray(weights) && weights.length === 0) throw new ModelError("mixture: give one weight per component, got an empty list");
  if (Array.isArray(weights)) (weights as readonly unknown[]).forEach((x, i) => checkOperand("mixture", `weights[${i + 1}]`, x));
  else checkOperand("mixture", "weights", weights);
  if (Array.isArray(components)) {
    (components as readonly unknown[]).forEach((c, i) => {
      if (!isDistribution(c)) throw new ModelError(`mixture: components[${i + 1}] must be a distribution such as normal(0, 1), got ${describeValue(c)}`);
    });
  } else if (!isDistribution(components)) throw new ModelError(`mixture: components must be a distribution or a list of distributions, got ${describeValue(components)}`);
  const w = Array.isArray(weights) ? stack((weights as readonly Operand[]).map((x) => lift(x)), -1) : lift(weights as Operand);
  if (w.rank === 0) throw new ModelError("mixture: weights must be a vector (one per component); pass [w1, w2, ...] or a vector node");
  const k = w.shape[w.rank - 1]!;
  const list = Array.isArray(components) ? (components as readonly Distribution[]) : undefined;
  const single = list ? undefined : (components as Distribution);
  const comps = list ?? [single!];
  for (const c of comps) {
    if (c.eventShape.length > 0) throw new ModelError(`mixture: components must be scalar distributions, ${c.name} has event shape [${c.eventShape.join(",")}]`);
  }
  if (list && list.length !== k) throw new ModelError(`mixture: ${k} weights for ${list.length} components; give one weight per component`);
  if (single && single.batchShape[single.batchShape.length - 1] !== k) {
    throw new ModelError(`mixture: the component distribution's last batch axis must have the ${k} components, its batch shape is [${single.batchShape.join(",")}]`);
  }
  const compBatch = list ? broadcastShapes("mixture", ...list.map((c) => c.batchShape)) : single!.batchShape.slice(0, -1);
  const batchShape = broadcastShapes("mixture", compBatch, w.shape.slice(0, -1));
  const logW = log(w);
  // Component log densities stacked on a last axis of K.
  const perComponent = (x: Operand): Node => {
    if (single) {
      const xn = lift(x);
      return single.logpdf(reshape(xn, [...xn.shape, 1]));
    }
    const lps = list!.map((c) => c.logpdf(x));
    const shape = broadcastShapes("mixture", ...lps.map((l) => l.shape));
    return stack(lps.map((l) => broadcastTo(l, shape)), -1);
  };
  const momentsOf = (f: (d: Distribution) => Node | undefined): Node | undefined => {
    if (single) return f(single);
    const vs = list!.map(f);
    if (vs.some((v) => v === undefined)) return undefined;
    const shape = broadcastShapes("mixture", ...vs.map((v) => v!.shape));
    return stack(vs.map((v) => broadcastTo(v!, shape)), -1);
  };
  const means = momentsOf((d) => d.mean?.());
  const vars = momentsOf((d) => d.variance?.());
  const first = comps[0]!.support;
  return {
    name: "mixture",
    support: comps.every((c) => c.support.kind === first.kind) ? first : { kind: "real" },
    discrete: comps.every((c) => c.discrete),
    batchShape,
    eventShape: [],
    logpdf: (x) => logsumexp(add(logW, perComponent(x)), -1),
    sample: (rng, shape = [], bindings) => {
      // Draw every component, then keep one per entry chosen by the weights.
      const draws = list
        ? list.map((c) => c.sample(rng, shape, bindings))
        : [single!.sample(rng, shape, bindings)];
      const [wv] = evalOperands([w], bindings);
      const outShape = [...shape, ...batchShape];
      const n = outShape.reduce((a, b) => a * b, 1);
      const out = new Float64Array(n);
      const wFlat = broadcastIndex([...wv!.shape.slice(0, -1), 1], [...outShape, 1]);
      const drawIdx = draws.map((d) => broadcastIndex(list ? d.shape : d.shape, list ? outShape : [...outShape, k]));
      for (let i = 0; i < n; i++) {
        const base = wFlat[i]! * k;
        const c = categoricalVariate(rng, wv!.data.subarray(base, base + k));
        out[i] = list ? draws[c]!.data[drawIdx[c]![i]!]! : draws[0]!.data[drawIdx[0]![i * k + c]!]!;
      }
      return { dtype: "f64", shape: outShape, data: out };
    },
    ...(means && vars
      ? {
          mean: () => sum(mul(w, means), -1),
          variance: () => sub(sum(mul(w, add(vars, square(means))), -1), square(sum(mul(w, means), -1))),
        }
      : {}),
  };
}
