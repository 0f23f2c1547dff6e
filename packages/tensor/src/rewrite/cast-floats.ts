import { cast } from "../api/elementwise.ts";
import { constant } from "../api/leaves.ts";
import { isFloat, type DType } from "../ir/dtype.ts";
import { Node } from "../ir/node.ts";
import { toposort } from "../graph/toposort.ts";

/**
 * The same graph computing every float in `dtype`: float params, data, constants and args take
 * that type (constants are rounded), every float-valued op computes in it, and casts between float
 * types disappear. Ints and bools are untouched. The GPU backend uses this for its default f32.
 */
export function castFloats(outputs: readonly Node[], dtype: "f32" | "f64"): Node[] {
  const to = (d: DType): DType => (isFloat(d) ? dtype : d);
  const memo = new Map<Node, Node>();
  for (const n of toposort(outputs)) {
    const inputs = n.inputs.map((i) => memo.get(i)!);
    memo.set(n, convert(n, inputs, to, dtype));
  }
  return outputs.map((o) => memo.get(o)!);
}

function convert(n: Node, inputs: Node[], to: (d: DType) => DType, dtype: "f32" | "f64"): Node {
  switch (n.op) {
    case "const":
      return isFloat(n.dtype) ? constant(n.attrs.value!, n.shape, dtype) : n;
    case "cast":
      return cast(inputs[0]!, to(n.dtype));
    case "scan": {
      const body = n.attrs.body!;
      return Node.make("scan", n.dtype, n.shape, inputs, {
        ...n.attrs,
        body: { ...body, outputs: castFloats(body.outputs, dtype) },
        outputs: n.attrs.outputs!.map((o) => ({ dtype: to(o.dtype), shape: o.shape })),
      });
    }
    default:
      // The scan node's own dtype is a placeholder (it is a tuple); tuple_get carries the real one.
      return Node.make(n.op, to(n.dtype), n.shape, inputs, n.attrs);
  }
}
