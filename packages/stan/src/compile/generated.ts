import { constant, type Node } from "@ppl/tensor";
import { substitute } from "@ppl/tensor/internals";
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
  const compute = (draw: GeneratedDraw) => {
    const drawn = new Map<Node, Node>();
    for (const c of calls) {
      const args = substitute(c.args, drawn);
      const dist = c.make(args);
      const v = draw.sample(dist, c.shape);
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
