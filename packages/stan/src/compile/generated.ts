import { cast, concat, constant, reshape, type Node } from "@ppl/tensor";
import { substitute, toposort } from "@ppl/tensor/internals";
import type { GeneratedDraw, ModelBuilder } from "@ppl/ppl";
import type { RngCall } from "./evaluate.ts";

/**
 * Generated quantities that draw random numbers: the block was traced with each _rng call as a
 * leaf; for each kept draw, the leaves are drawn in program order (each distribution's arguments
 * evaluated at the draw, with the earlier draws put in), then every quantity is evaluated with
 * them. All of a draw's quantities are computed once, from the stream of the first quantity.
 */
export function declareRandomQuantities(m: ModelBuilder, outputs: readonly { name: string; value: Node }[], calls: readonly RngCall[]): void {
  let cached: { key: string; values: Map<string, Float64Array> } | undefined;
  const leaves = new Set(calls.map((c) => c.leaf));
  // The draws each call's arguments read (hierarchical_gp's 700 draws of y_new_pred read one, level).
  const reads = calls.map((c) => new Set(toposort(c.args).filter((n) => leaves.has(n))));
  const compute = (draw: GeneratedDraw) => {
    const drawn = new Map<Node, Node>();
    const argValues = new Map<number, Node[]>();
    for (let i = 0; i < calls.length; i++) {
      // The arguments of every later call whose draws are all made are evaluated at once, in one
      // pass over the model's graph (a pass per call recomputed the transformed parameters each time).
      if (!argValues.has(i)) evaluateReady(draw, calls, reads, i, drawn, argValues);
      const c = calls[i]!;
      const v = draw.sample(c.make(argValues.get(i)!), c.shape);
      drawn.set(c.leaf, constant(Array.from(v.data), c.shape));
    }
    const nodes = substitute(outputs.map((o) => o.value), drawn);
    return new Map(outputs.map((o, i) => [o.name, Float64Array.from(draw.value(nodes[i]!).data)]));
  };
  for (const o of outputs) {
    // draw.sample draws from the stream of the quantity being computed: the first one's, for every quantity of the draw.
    m.generated(o.name, (draw) => {
      const key = `${draw.chain}:${draw.draw}`;
      if (cached?.key !== key) cached = { key, values: compute(draw) };
      return cached.values.get(o.name)!;
    }, { shape: [...o.value.shape] });
  }
}

// The arguments, as constants, of calls from `first` on whose draws are all made: one evaluation of
// all of them, concatenated.
function evaluateReady(draw: GeneratedDraw, calls: readonly RngCall[], reads: readonly Set<Node>[], first: number, drawn: ReadonlyMap<Node, Node>, out: Map<number, Node[]>): void {
  const ready: number[] = [];
  for (let j = first; j < calls.length; j++) if (!out.has(j) && [...reads[j]!].every((l) => drawn.has(l))) ready.push(j);
  const args = substitute(ready.flatMap((j) => calls[j]!.args), drawn);
  const flat = args.length === 0 ? [] : draw.value(concat(args.map((a) => reshape(cast(a, "f64"), [a.size])))).data;
  let at = 0, k = 0;
  for (const j of ready) {
    out.set(j, calls[j]!.args.map(() => {
      const a = args[k++]!;
      const c = constant(Array.from(flat.slice(at, at + a.size)), a.shape, a.dtype);
      at += a.size;
      return c;
    }));
  }
}
