/**
 * The fused log density lpdf_sum(family, y, ...params): Σ log p(y | params) over the broadcast of
 * its inputs as one scalar node, as Stan's math library writes its `_lpdf`s. Its value and its
 * partials are written here once, in primitive ops, so that the expansion a backend lowers the node
 * to and the vjp rule's partials are built from the same nodes and hash-cons together: on the
 * compiled CPU backend the value and every partial's sum then share one loop over the data.
 *
 * What it saves over differentiating the expansion: the normal takes one reciprocal of σ rather than
 * dividing twice per element, and its constant n·½log 2π (and n·log σ for a scalar σ) is added once;
 * Bernoulli-logit's log σ(t) and its derivative σ(−t) share one exp(−|t|); Poisson-log's partial is
 * y − e^α with the e^α of the value.
 */
import { unbroadcast } from "../autodiff/unbroadcast.ts";
import { floatOf, isFloat, promote } from "../ir/dtype.ts";
import { ShapeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { LPDF_FAMILIES, type LpdfFamily } from "../ir/ops.ts";
import { broadcastShapes, sizeOf } from "../ir/shape.ts";
import { abs, add, cast, div, exp, ge, lgamma, log, log1p, minimum, mul, neg, reciprocal, select, square, sub } from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";
import { sum } from "./reduce.ts";

const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

/** Parameters after y, by family. */
export const LPDF_ARITY: Readonly<Record<LpdfFamily, number>> = { normal: 2, bernoulli_logit: 1, poisson_log: 1 };

/** The fused node Σ log p(y | params) of a family over the broadcast of y and its parameters (a scalar). */
export function lpdfSum(family: LpdfFamily, y: Operand, ...params: Operand[]): Node {
  if (!LPDF_FAMILIES.includes(family)) throw new ShapeError(`lpdf_sum: unknown family '${family}'; the families are ${LPDF_FAMILIES.join(", ")}`);
  if (params.length !== LPDF_ARITY[family]) throw new ShapeError(`lpdf_sum(${family}): takes y and ${LPDF_ARITY[family]} parameter(s), got ${params.length}`);
  const inputs = [y, ...params].map((x) => lift(x));
  broadcastShapes("lpdf_sum", ...inputs.map((n) => n.shape));
  const dtype = floatOf(inputs.map((n) => n.dtype).reduce(promote));
  return Node.make("lpdf_sum", dtype, [], inputs, { family });
}

/** The value of lpdf_sum in primitive ops (what backends without a kernel of their own lower the node to). */
export function lpdfSumExpansion(family: LpdfFamily, inputs: readonly Node[]): Node {
  const shape = broadcastShapes("lpdf_sum", ...inputs.map((n) => n.shape));
  const n = sizeOf(shape);
  const [y, a] = inputs as [Node, Node];
  switch (family) {
    case "normal": {
      const sigma = inputs[2]!;
      const { zz } = normalTerms(y, a, sigma);
      // Σ log σ over the broadcast: each entry of σ repeats n/|σ| times.
      const logSigma = mul(n / sigma.size, total(log(sigma)));
      return neg(add(add(mul(0.5, total(zz)), logSigma), n * HALF_LOG_TWO_PI));
    }
    case "bernoulli_logit": {
      // log σ(t) = min(t, 0) − log1p(e^−|t|), t = (2y − 1)·α.
      const { t, e } = bernoulliTerms(y, a);
      return total(sub(minimum(t, 0), log1p(e)));
    }
    case "poisson_log": {
      // Σ log y! reads y alone: hoisted out of the data loop where y is data (hoistData). The
      // counts are integers; lgamma takes them in the node's own float type (an f32 kernel has no f64).
      const dtype = floatOf(inputs.map((x) => x.dtype).reduce(promote));
      const logFactorial = mul(n / y.size, total(lgamma(add(cast(y, dtype), 1))));
      return sub(total(sub(mul(y, a), exp(a))), logFactorial);
    }
  }
}

/**
 * The cotangents of lpdf_sum's inputs for the scalar cotangent ct of its value (null for integer
 * inputs, a discrete family's y, and inputs `needed` leaves out), each of its input's shape and dtype.
 */
export function lpdfSumPartials(family: LpdfFamily, inputs: readonly Node[], ct: Node, needed?: readonly boolean[]): (Node | null)[] {
  const want = (k: number) => (needed?.[k] ?? true) && isFloat(inputs[k]!.dtype);
  const to = (k: number, g: () => Node): Node | null => (want(k) ? fit(g(), inputs[k]!) : null);
  const [y, a] = inputs as [Node, Node];
  switch (family) {
    case "normal": {
      const sigma = inputs[2]!;
      const { inv, z, zz } = normalTerms(y, a, sigma);
      const scaled = mul(inv, ct);
      // ∂/∂μ = (y − μ)/σ², ∂/∂y = −(y − μ)/σ², ∂/∂σ = ((y − μ)²/σ² − 1)/σ, summed over broadcasting.
      const dMu = () => mul(z, scaled);
      const n = sizeOf(broadcastShapes("lpdf_sum", y.shape, a.shape, sigma.shape));
      return [
        to(0, () => unbroadcast(neg(dMu()), y.shape)),
        to(1, () => unbroadcast(dMu(), a.shape)),
        to(2, () => mul(sub(unbroadcast(zz, sigma.shape), n / sigma.size), scaled)),
      ];
    }
    case "bernoulli_logit": {
      // ∂/∂α = s·σ(−t) with s = 2y − 1: σ(−t) = e/(1 + e) for t ≥ 0 and 1/(1 + e) below, e = e^−|t|.
      const { s, t, e } = bernoulliTerms(y, a);
      return [null, to(1, () => unbroadcast(mul(mul(s, div(select(ge(t, 0), e, 1), add(e, 1))), ct), a.shape))];
    }
    case "poisson_log":
      return [null, to(1, () => unbroadcast(mul(sub(y, exp(a)), ct), a.shape))];
  }
}

// z = (y − μ)·(1/σ) with one reciprocal per entry of σ, and z².
function normalTerms(y: Node, mu: Node, sigma: Node) {
  const inv = reciprocal(sigma);
  const z = mul(sub(y, mu), inv);
  return { inv, z, zz: square(z) };
}

function bernoulliTerms(y: Node, alpha: Node) {
  const s = sub(mul(2, y), 1);
  const t = mul(s, alpha);
  return { s, t, e: exp(neg(abs(t))) };
}

// The sum of every entry as a scalar, built as unbroadcast builds it, so that the value's Σz² and
// the partial of a scalar σ are one node.
const total = (x: Node): Node => unbroadcast(x, []);

// A partial in its input's float type (the node computes in the promoted one).
function fit(g: Node, input: Node): Node {
  return g.dtype === input.dtype ? g : cast(g, input.dtype);
}
