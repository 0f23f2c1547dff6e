import { valueAndGrad, vmap, type Node } from "@ppl/tensor";
import { toposort } from "@ppl/tensor/ir";
import { castFloats, lowerLpdfSums, optimize } from "@ppl/tensor/passes";
import type { CompiledModel } from "../model/compile.ts";
import { fusedDensityOf } from "../model/fused-density.ts";

/** The log density and its gradient with respect to q, as one graph a backend or a sampler kernel runs. */
export interface GradientGraph {
  /** The log density: a scalar, or [chains] when batched. */
  readonly lp: Node;
  /** Its gradient: [dim], or [chains, dim] when batched. */
  readonly grad: Node;
  /** The unconstrained position leaf the graph reads (in `dtype`; batched graphs read it as [chains, dim]). */
  readonly q: Node;
  readonly dtype: "f32" | "f64";
  /** Chains evaluated at once, or null for one chain. */
  readonly chains: number | null;
}

/** How the gradient graph is laid out. */
export interface GradientGraphOptions {
  /** Float type every float is computed in (default f64). */
  readonly dtype?: "f32" | "f64";
  /** Batch this many chains over a leading axis (vmap), so that the data are read once for all of them. */
  readonly chains?: number;
  /**
   * Differentiate the log density with its long observations summed by fused nodes (lpdf_sum), in
   * one chain and f64: the CPU density does. Default false: the GPU sampler's kernels keep the
   * expansion, which their row passes recognise, and there the gradient is bound by reading the
   * data, which fusing would not change.
   */
  readonly fused?: boolean;
}

const built = new WeakMap<Node, Map<string, GradientGraph>>();

/**
 * The model's log density and gradient, differentiated and optimized once in f64; batching (vmap over
 * the chains, optimized again) comes next and the float cast last, so that every runner of a model, on
 * the CPU or in a GPU kernel, evaluates the same graph. Memoized per model, dtype, chain count and fusion.
 */
export function gradientGraph(model: Pick<CompiledModel, "logDensity" | "q">, opts: GradientGraphOptions = {}): GradientGraph {
  const dtype = opts.dtype ?? "f64";
  const chains = opts.chains ?? null;
  const fused = opts.fused === true && dtype === "f64" && chains === null ? fusedDensityOf(model.logDensity) : undefined;
  const key = `${dtype}/${chains ?? "-"}/${fused ? "fused" : "plain"}`;
  let cache = built.get(model.logDensity);
  if (!cache) built.set(model.logDensity, (cache = new Map()));
  const hit = cache.get(key);
  if (hit) return hit;
  let graph: GradientGraph;
  if (dtype === "f64" && chains === null) {
    const { value, grads } = valueAndGrad(fused ?? model.logDensity, [model.q]);
    // The fused nodes are lowered before optimizing, so that their value's terms and the partials'
    // share nodes, and before the density hoists data, so that their sums of data alone (Σ log y!) are hoisted.
    const [lp, grad] = optimize(lowerLpdfSums([value, grads[0]!]));
    graph = { lp: lp!, grad: grad!, q: model.q, dtype, chains };
  } else {
    const base = gradientGraph({ logDensity: model.logDensity, q: model.q });
    let outs = chains === null ? [base.lp, base.grad] : optimize(vmap([base.lp, base.grad], new Map([[model.q, chains]])));
    if (dtype === "f32") outs = castFloats(outs, "f32");
    graph = { lp: outs[0]!, grad: outs[1]!, q: positionLeaf(outs, model.q, dtype), dtype, chains };
  }
  cache.set(key, graph);
  return graph;
}

// The position leaf as the final graph reads it (batched and cast); a density that never reads q gets
// the leaf in the graph's float type, which no output depends on.
function positionLeaf(outs: readonly Node[], q: Node, dtype: "f32" | "f64"): Node {
  const leaf = toposort(outs).find((n) => n.op === "param" && n.attrs.name === q.attrs.name);
  return leaf ?? (dtype === q.dtype ? q : castFloats([q], dtype)[0]!);
}
