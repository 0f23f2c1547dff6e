import { rebuild } from "../graph/substitute.ts";
import { toposort } from "../graph/toposort.ts";
import { Node } from "../ir/node.ts";
import { sameShape } from "../ir/shape.ts";

/**
 * The graph with every sum over a scatter's target axis of the scatter times a factor written as
 * a sum over the scatter's rows:
 *
 *   Σ_j w[j] · scatter_add(v, idx)[j]  =  Σ_i w[idx[i]] · v[i]   (and Σ_j scatter_add(v, idx)[j] = Σ_i v[i]).
 *
 * The two are equal up to the order of the additions. A hierarchical model's gradient holds such
 * sums: the group effects a = μ + γ·u + σ·a_raw are gathered by a group index, the adjoint of
 * the gather is a scatter into the groups, and the gradients of μ, γ and σ are sums over the
 * groups of that scatter times 1, u and a_raw. Written over the rows, these sums read the
 * scatter's inputs instead of its result, so on a GPU they run beside the scatter in one dispatch
 * rather than in a dependent dispatch after it. The scatter itself stays where anything else
 * reads it (the gradient of a_raw).
 *
 * Only a reduce_sum over exactly the target axis of a rank-1 index is rewritten, of the scatter
 * itself or of a product of two factors one of which is the scatter (the other broadcast to its
 * shape). Scan bodies are left as they are. For the CPU a sum over rows is more work than one
 * over groups, so this is a rewrite of the GPU's planner only.
 */
export function sumScattersOverRows(outputs: readonly Node[]): Node[] {
  if (!toposort(outputs).some((n) => n.op === "scatter_add")) return [...outputs];
  return rebuild(outputs, (n, inputs) => {
    const m = inputs.every((x, k) => x === n.inputs[k]) ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs);
    return overRows(m) ?? m;
  });
}

function overRows(n: Node): Node | undefined {
  if (n.op !== "reduce_sum" || n.attrs.axes?.length !== 1) return undefined;
  const ax = n.attrs.axes[0]!;
  const x = n.inputs[0]!;
  let scatter: Node | undefined;
  let factor: Node | undefined;
  if (isScatterOver(x, ax)) scatter = x;
  else if (x.op === "mul") {
    const [a, b] = x.inputs as [Node, Node];
    if (isScatterOver(a, ax) && sameShape(a.shape, x.shape)) [scatter, factor] = [a, b];
    else if (isScatterOver(b, ax) && sameShape(b.shape, x.shape)) [scatter, factor] = [b, a];
  }
  if (scatter === undefined || scatter.dtype !== n.dtype) return undefined;
  const [v, idx] = scatter.inputs as [Node, Node];
  let rows = v;
  if (factor !== undefined) {
    // The factor is right-aligned against the scatter's shape (NumPy broadcasting): its axis fax
    // runs over the targets, unless it is missing or of size 1 (the factor is the same for every
    // target, and so for every row).
    const fax = ax - (scatter.rank - factor.rank);
    const perRow = fax >= 0 && factor.shape[fax] !== 1
      ? Node.make("gather", factor.dtype, [...factor.shape.slice(0, fax), ...idx.shape, ...factor.shape.slice(fax + 1)], [factor, idx], { axis: fax })
      : factor;
    if (perRow.dtype !== v.dtype) return undefined;
    rows = Node.make("mul", v.dtype, v.shape, [v, perRow]);
  }
  return Node.make("reduce_sum", n.dtype, n.shape, [rows], { axes: [ax] });
}

// A scatter into `ax` by a rank-1 index: its rows run over `ax` of its updates too.
function isScatterOver(x: Node, ax: number): boolean {
  return x.op === "scatter_add" && x.attrs.axis === ax && x.inputs[1]!.rank === 1;
}
