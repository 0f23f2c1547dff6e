/**
 * The leapfrog halves of integrator.ts (diagonal metric) as tensor-IR graphs over C chains, with
 * the masking of trajectory.ts: what a backend renders to run n steps of every chain's trajectory
 * without the host (the GPU's LeapfrogDensity.leapfrogs records them n times between its gradient's
 * kernels). The same operations in the same order as leapfrogBegin/leapfrogEnd, so that in f64 a
 * step is the host's bits (test/leapfrog-graph.test.ts, through the reference interpreter). A step
 * is `begin`, the gradient at its q, then `end`; a chain whose `active` is false keeps its values.
 */
import { add, and, broadcastTo, cast, constant, div, isFinite, lt, mul, not, or, param, reshape, select, sqrt, sub, type DType, type Node } from "@ppl/tensor";
import { normalsGraph, philoxGraph, uniformGraph } from "../random/philox-graph.ts";

/** The state a step reads and writes, by name: the params of the graphs, [C, D] or [C]. */
export const LEAPFROG_STATE = ["q", "p", "grad", "lp", "active", "taken"] as const;
/** A field of the state a step carries from one step to the next. */
export type LeapfrogStateField = (typeof LEAPFROG_STATE)[number];

/** The two halves of a step as graphs, their inputs (param leaves) and outputs by name. */
export interface LeapfrogGraphs {
  /** Inputs of both halves: the state, the step sizes ε [C], the steps to take [C], the inverse metric [C, D], whether a non-finite lp stops a chain (a bool scalar). */
  readonly inputs: Readonly<Record<LeapfrogStateField | "stepSize" | "steps" | "invMetric" | "stop", Node>>;
  /**
   * The first half: p += ε/2·∇, q += ε·M⁻¹p for the active chains. Its outputs: `q` (where the
   * gradient is evaluated next) and `p`, the mid-step momentum.
   */
  readonly begin: { readonly q: Node; readonly p: Node };
  /**
   * The second half, after the gradient at begin's q: its inputs besides the state are `midQ`,
   * `midP` (begin's outputs) and `newLp`, `newGrad` (the gradient's). Its outputs: the next state,
   * the active chains' p += ε/2·∇ and their lp and gradient taken, a step counted, a chain made
   * inactive by its last step or (with stop) a non-finite lp.
   */
  readonly end: Readonly<Record<LeapfrogStateField, Node>> & { readonly inputs: { readonly midQ: Node; readonly midP: Node; readonly newLp: Node; readonly newGrad: Node } };
}

/** The leapfrog halves of C chains of dimension D in `dtype` (the positions' float type). */
export function leapfrogGraphs(chains: number, dim: number, dtype: "f32" | "f64"): LeapfrogGraphs {
  const rows = (name: string, t: DType = dtype): Node => param(name, [chains, dim], t);
  const perChain = (name: string, t: DType = dtype): Node => param(name, [chains], t);
  const inputs = {
    q: rows("q"), p: rows("p"), grad: rows("grad"), lp: perChain("lp"), active: perChain("active", "bool"), taken: perChain("taken", "i32"),
    stepSize: perChain("step_size"), steps: perChain("steps", "i32"), invMetric: rows("inv_metric"), stop: param("stop", [], "bool"),
  };
  // A chain's value along its row: [C] as [C, D].
  const alongRow = (x: Node): Node => broadcastTo(reshape(x, [chains, 1]), [chains, dim]);
  const eps = alongRow(inputs.stepSize);
  // leapfrogBegin: half = 0.5·ε; p + half·g; v = M⁻¹p; q + ε·v.
  const half = mul(0.5, eps);
  const active = alongRow(inputs.active);
  const kicked = add(inputs.p, mul(half, inputs.grad));
  const drifted = add(inputs.q, mul(eps, mul(inputs.invMetric, kicked)));
  const begin = { q: select(active, drifted, inputs.q), p: select(active, kicked, inputs.p) };
  const midQ = rows("mid_q");
  const midP = rows("mid_p");
  const newLp = perChain("new_lp");
  const newGrad = rows("new_grad");
  // leapfrogEnd: p + half·g at the new point; then trajectoryAdvance's count and stop.
  const step = cast(inputs.active, "i32");
  const taken = add(inputs.taken, step);
  // taken + step < steps, written so that `active` does not read `taken` back from memory (the
  // end of a step is then one dispatch, not two); exact in i32.
  const goesOn = and(lt(inputs.taken, sub(inputs.steps, step)), or(not(inputs.stop), isFinite(newLp)));
  const end = {
    q: select(active, midQ, inputs.q),
    p: select(active, add(midP, mul(half, newGrad)), midP),
    grad: select(active, newGrad, inputs.grad),
    lp: select(inputs.active, newLp, inputs.lp),
    active: and(inputs.active, goesOn),
    taken,
    inputs: { midQ, midP, newLp, newGrad },
  };
  return { inputs, begin, end };
}

/**
 * A trajectory's own draws (MomentumDraw) for C chains as graphs: the momenta p = z·(1/√M⁻¹) from
 * normalsGraph's streams (Metric.momentumFromNormals' arithmetic), and each chain's accept uniform,
 * streamUniform's variate 0 of block 0 at the same iteration under accept_word. Params:
 * normalsGraph's (chain_id, iteration, purpose_word, key_lo, key_hi), accept_word, inv_metric [C, D].
 */
export function momentumDrawGraphs(chains: number, dim: number, dtype: "f32" | "f64"): { readonly p: Node; readonly acceptUniform: Node } {
  const { params, normals } = normalsGraph(chains, dim, dtype);
  const p = mul(normals, div(1, sqrt(param("inv_metric", [chains, dim], dtype))));
  const [w0, w1] = philoxGraph([params.chain, params.iteration, param("accept_word", [], "i32"), constant(0, [], "i32")], [params.keyLo, params.keyHi]);
  return { p, acceptUniform: uniformGraph(w0, w1, dtype) };
}
