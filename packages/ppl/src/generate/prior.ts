/**
 * Exact draws from a model's prior without MCMC: each parameter, in declaration order, drawn from
 * its prior's own sampler (its parameters evaluated at the earlier parameters' draws), on the host
 * in f64. Parameter k of prior draw s of chain c reads the Philox stream
 * (seed, c, s, Purpose.Prior, k).
 *
 * A draw is kept when it lies inside the parameter's constraint. Where the prior puts mass outside
 * it (normal(0, 1) on a positive parameter), the draw is repeated — an exact draw of the truncated
 * prior, which is the model's prior when the bounds are constants. The drawable priors:
 *   - every built-in distribution, on its own support or truncated to a constraint with constant bounds;
 *   - ordered and positive_ordered vectors whose entries share one scalar prior (sorted iid draws);
 *   - no prior (flat) on an interval with constant bounds (uniform), a simplex (Dirichlet(1)), a
 *     row- or column-stochastic matrix (Dirichlet(1) rows or columns), a correlation matrix or its
 *     Cholesky factor (LKJ(1)) or a unit vector (uniform on the sphere);
 *   - offset/multiplier parameters, whose prior is drawn as it is (the transform truncates nothing).
 * Everything else is a ModelError naming the term: a factor term, an observe of a parameter
 * (a prior written outside m.param), a custom density, a flat prior on an unbounded space, a
 * truncation whose bounds depend on other parameters (its normalizing constant is then not in the
 * log density, so the model's prior is not the truncated prior), a prior on a unit vector, a
 * sum-to-zero vector (its prior restricted to the hyperplane).
 */
import { constant, param as paramLeaf, type Node, type TensorValue } from "@ppl/tensor";
import { sizeOf, substitute, toposort } from "@ppl/tensor/ir";
import type { Distribution } from "../distributions/distribution.ts";
import { dirichlet } from "../distributions/dirichlet.ts";
import { lkjCholesky } from "../distributions/lkj-cholesky.ts";
import { lkjCorr } from "../distributions/lkj-corr.ts";
import { sampleToShape } from "../distributions/sampling.ts";
import type { DeclaredParam } from "../model/builder.ts";
import type { CompiledModel } from "../model/compile.ts";
import { ModelError } from "../model/errors.ts";
import { copyInStanOrder } from "../model/stan-names.ts";
import { StreamRng } from "../random/rng.ts";
import { Purpose, seedKey } from "../random/streams.ts";
import { DrawValues } from "./draw-values.ts";

/** Draws a compiled model's parameters (and its deterministics) from the prior. */
export interface PriorSampler {
  /**
   * Prior draw `draw` (0-based) of chain `chain` (0-based): the parameters' constrained values and
   * the deterministics, in constrainedNames() order. The array is reused by the next call.
   */
  at(chain: number, draw: number): Float64Array;
}

/** Draws that may fall outside a constraint before one is kept (per entry or event, or per parameter). */
const MAX_TRIES = 1000;

// Constraints that act entry by entry, so an entry (or event) outside is redrawn alone.
const ELEMENTWISE = new Set(["real", "lower", "upper", "interval", "unit_interval", "positive"]);

// How one parameter is drawn.
interface ParamPlan {
  readonly param: DeclaredParam;
  readonly index: number;
  /** Offset of the parameter's entries in the constrained vector. */
  readonly offset: number;
  /** Draws a candidate (row-major, the parameter's shape). */
  readonly draw: (rng: StreamRng) => Float64Array;
  /** How many entries one rejection unit covers: an event for elementwise constraints, the whole parameter otherwise. */
  readonly unit: number;
  /** Sort the accepted draw (ordered vectors of iid entries). */
  readonly sort: boolean;
  /** The candidate's leaf and forward(inverse(candidate)): a draw inside the constraint maps back onto itself. */
  readonly candidate: TensorValue;
  readonly roundTrip: Node;
}

/** Prepares exact prior draws of a compiled model; a model whose prior has no exact draw is a ModelError naming the term. */
export function priorSampler(model: CompiledModel, seed: number): PriorSampler {
  const { params, deterministics, observations, factors } = model.recorded;
  const cannot = `model '${model.name}': its prior cannot be drawn directly`;
  if (factors.length > 0) throw new ModelError(`${cannot}: the term ${factors[0]} is a log density with no sampler`);
  for (const o of observations) {
    if (toposort([o.value]).some((n) => n.op === "param")) {
      throw new ModelError(`${cannot}: the term ${o.label} gives a parameter a density outside m.param, which has no sampler; give the parameter that distribution as its prior, m.param(name, dist)`);
    }
  }
  const values = new DrawValues(model);
  let offset = 0;
  const plans = params.map((p, index) => {
    const plan = planParam(model, cannot, values, p, index, offset);
    offset += p.value.size;
    return plan;
  });
  const detNodes = deterministics.map((d) => d.value);
  const out = new Float64Array(model.constrainedNames().length);
  const rng = new StreamRng(seedKey(seed), 0, 0, Purpose.Prior, 0);

  const sampler: PriorSampler = {
    at(chain, draw) {
      for (const plan of plans) {
        rng.reset(chain, draw, Purpose.Prior, plan.index);
        const x = drawInside(plan, rng, values, cannot);
        copyInStanOrder(x, plan.param.shape, values.params, plan.offset);
      }
      out.set(values.params);
      let at = values.params.length;
      const dets = detNodes.length > 0 ? values.values(detNodes) : [];
      dets.forEach((v, k) => {
        copyInStanOrder(v.data, deterministics[k]!.value.shape, out, at);
        at += v.data.length;
      });
      return out;
    },
  };
  // The first draw now: a prior whose sampler fails (a custom density) is reported before any output.
  sampler.at(0, 0);
  return sampler;
}

function planParam(model: CompiledModel, cannot: string, values: DrawValues, p: DeclaredParam, index: number, offset: number): ParamPlan {
  const name = p.name;
  const t = p.transform;
  // Other parameters' values in the bounds: the constrained value's graph reads leaves besides its own.
  const dependentBounds = toposort([p.value]).some((n) => n.op === "param" && n !== p.leaf);
  // The log density holds no normalizing constant of the truncation; where the bounds move with
  // other parameters, that constant would change their prior, so the truncated draw is not the model's.
  // offset/multiplier maps onto the whole real line, so it truncates nothing whatever its parameters.
  if (p.prior !== undefined && p.explicitConstraint && dependentBounds && t.name !== "offset_multiplier") {
    throw new ModelError(`${cannot}: parameter '${name}' has the prior ${p.prior.name} and the constraint ${t.name}, whose bounds depend on other parameters; the model's prior is then not the prior truncated to the constraint (the truncation's normalizing constant is not in the log density) — give the parameter a prior whose support is its constraint, without an explicit constraint`);
  }
  if (t.name === "sum_to_zero") {
    throw new ModelError(`${cannot}: parameter '${name}' is a sum-to-zero vector, whose prior is ${p.prior?.name ?? "flat"} restricted to the hyperplane Σx = 0, which no sampler draws exactly; draw it with MCMC instead`);
  }
  if (p.prior !== undefined && t.name === "unit_vector") {
    throw new ModelError(`${cannot}: parameter '${name}' has the prior ${p.prior.name} on a unit vector, whose draws are not unit vectors; leave its prior out (uniform on the sphere)`);
  }
  const candidateName = `c:prior:${name}`;
  const candidate: TensorValue = { dtype: "f64", shape: [...p.shape], data: new Float64Array(sizeOf(p.shape)) };
  values.bind(candidateName, candidate);
  const [roundTrip] = substitute([t.forward(t.inverse(paramLeaf(candidateName, p.shape)))], model.recorded.atConstrained);
  const whole = Math.max(1, sizeOf(p.shape));
  const common = { param: p, index, offset, candidate, roundTrip: roundTrip! };
  const prior = p.prior ?? flatPrior(cannot, p, dependentBounds);
  if (prior === "sphere") return { ...common, draw: sphereDraw(whole), unit: whole, sort: false };
  if (prior === "uniform") return { ...common, draw: uniformDraw(model, values, p), unit: 1, sort: false };
  if (prior === "stochastic") return { ...common, draw: stochasticDraw(p.shape, t.name === "column_stochastic"), unit: whole, sort: false };
  const iidScalar = prior.eventShape.length === 0 && prior.batchShape.every((d) => d === 1);
  const sort = (t.name === "ordered" || t.name === "positive_ordered") && iidScalar;
  const draw = (rng: StreamRng): Float64Array => {
    let v: TensorValue | undefined;
    try {
      v = sampleToShape(prior, p.shape, rng, values);
    } catch (e) {
      throw new ModelError(`${cannot}: parameter '${name}' cannot be drawn from its prior ${prior.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (v === undefined) throw new Error(`priorSampler: the prior of '${name}' does not fit its shape; this is a bug`);
    return v.data;
  };
  return { ...common, draw, sort, unit: ELEMENTWISE.has(t.name) || sort ? Math.max(1, sizeOf(prior.eventShape)) : whole };
}

// What a parameter declared without a prior is drawn from: uniform on its constrained space, where that is a proper distribution.
function flatPrior(cannot: string, p: DeclaredParam, dependentBounds: boolean): Distribution | "sphere" | "uniform" | "stochastic" {
  const k = p.shape[p.shape.length - 1] ?? 1;
  switch (p.transform.name) {
    case "simplex":
      return dirichlet(constant(new Float64Array(k).fill(1), [k]));
    case "cholesky_corr":
      return lkjCholesky(k, 1);
    case "corr_matrix":
      return lkjCorr(k, 1);
    case "row_stochastic":
    case "column_stochastic":
      return "stochastic";
    case "unit_vector":
      return "sphere";
    case "interval":
    case "unit_interval":
      if (!dependentBounds) return "uniform";
      throw new ModelError(`${cannot}: parameter '${p.name}' has no prior and bounds that depend on other parameters, so its flat density is not a normalized uniform; give it a prior, e.g. uniform(lower, upper)`);
    default:
      throw new ModelError(`${cannot}: parameter '${p.name}' has no prior (flat on ${p.transform.name}), which is improper and has no draws; give it a proper prior, m.param("${p.name}", dist)`);
  }
}

// Uniform on a unit vector's sphere: standard normals scaled to length 1.
function sphereDraw(k: number): (rng: StreamRng) => Float64Array {
  return (rng) => {
    const x = Float64Array.from({ length: k }, () => rng.normal());
    const r = Math.hypot(...x);
    return x.map((v) => v / r);
  };
}

// Uniform on the row- or column-stochastic matrices: each row (column) Dirichlet(1), normalized Exp(1) draws.
function stochasticDraw(shape: readonly number[], byColumn: boolean): (rng: StreamRng) => Float64Array {
  const [r, c] = [shape[0]!, shape[1]!];
  return (rng) => {
    const x = Float64Array.from({ length: r * c }, () => -Math.log(rng.uniform()));
    const sums = new Float64Array(byColumn ? c : r);
    x.forEach((v, f) => (sums[byColumn ? f % c : Math.floor(f / c)]! += v));
    return x.map((v, f) => v / sums[byColumn ? f % c : Math.floor(f / c)]!);
  };
}

// Uniform on an interval with constant bounds: the transform's forward map at logit(u), u uniform in (0, 1).
function uniformDraw(model: CompiledModel, values: DrawValues, p: DeclaredParam): (rng: StreamRng) => Float64Array {
  const n = p.transform.unconstrainedSize;
  const leafName = `c:prior-u:${p.name}`;
  const u: TensorValue = { dtype: "f64", shape: [n], data: new Float64Array(n) };
  values.bind(leafName, u);
  const [x] = substitute([p.transform.forward(paramLeaf(leafName, [n]))], model.recorded.atConstrained);
  return (rng) => {
    for (let i = 0; i < n; i++) {
      const v = rng.uniform();
      u.data[i] = Math.log(v) - Math.log1p(-v);
    }
    return values.values([x!])[0]!.data;
  };
}

// A draw of the parameter inside its constraint: rejected units (entries, events or the whole
// parameter) are drawn again from the same stream until every one lies inside.
function drawInside(plan: ParamPlan, rng: StreamRng, values: DrawValues, cannot: string): Float64Array {
  const x = Float64Array.from(plan.draw(rng));
  const n = x.length;
  const units = Math.ceil(n / plan.unit);
  for (let tries = 1; ; tries++) {
    if (plan.sort) prepareSorted(plan, x);
    const bad = outside(plan, x, values, units);
    if (bad.length === 0) return x;
    const p = plan.param;
    if (tries >= MAX_TRIES) {
      throw new ModelError(`${cannot}: fewer than 1 in ${MAX_TRIES} draws of the prior ${p.prior?.name ?? "(flat)"} of parameter '${p.name}' fall inside its constraint ${p.transform.name}; give it a prior whose support is the constraint`);
    }
    const again = plan.draw(rng);
    for (const u of bad) x.set(again.subarray(u * plan.unit, Math.min(n, (u + 1) * plan.unit)), u * plan.unit);
  }
}

// Ordered vectors of iid entries: sorted draws, the positive ones first kept for positive_ordered.
function prepareSorted(plan: ParamPlan, x: Float64Array): void {
  if (plan.param.transform.name === "positive_ordered" && x.some((v) => !(v > 0))) return;
  x.sort();
}

// The rejection units of x that lie outside the constraint: forward(inverse(x)) does not give x back.
function outside(plan: ParamPlan, x: Float64Array, values: DrawValues, units: number): number[] {
  if (plan.param.transform.name === "positive_ordered" && plan.sort) {
    const bad = [];
    for (let i = 0; i < x.length; i++) if (!(x[i]! > 0)) bad.push(i);
    if (bad.length > 0) return bad;
  }
  plan.candidate.data.set(x);
  const back = values.values([plan.roundTrip])[0]!.data;
  const bad: number[] = [];
  for (let u = 0; u < units; u++) {
    for (let i = u * plan.unit; i < Math.min(x.length, (u + 1) * plan.unit); i++) {
      const v = x[i]!;
      if (!(Number.isFinite(back[i]!) && Math.abs(back[i]! - v) <= 1e-9 * Math.max(1, Math.abs(v)))) {
        bad.push(u);
        break;
      }
    }
  }
  return bad;
}
