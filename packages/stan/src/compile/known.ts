import { data as dataLeaf, interpret, Node, type TensorValue } from "@ppl/tensor";
import { isCells, readsParams, type Val } from "./values.ts";

// Ops whose value the reference interpreter computes from their inputs alone (leaves and loops
// are handled, or refused, apart).
const OPAQUE = new Set(["param", "arg", "scan", "tuple_get"]);

/**
 * What a program knows before sampling: its data values, and every value computed from data alone.
 * Stan runs its loops and branches with the data in hand; so does the tracer: a loop bound
 * `K[j]`, a condition `y[n] == 0` or a segment's start read from data are evaluated here while the
 * graph keeps reading the data through its data leaves. One instance serves one build: data leaves
 * are interned by name and shape, so values are never remembered across builds.
 */
export class KnownValues {
  private readonly memo = new Map<Node, Float64Array | null>();

  constructor(private readonly data: Readonly<Record<string, TensorValue>>) {}

  /** The value of a scalar when it follows from the data alone, else undefined. */
  scalar(v: Val): number | undefined {
    if (typeof v === "number") return v;
    if (isCells(v) || v.rank !== 0) return undefined;
    return this.values(v)?.[0];
  }

  /** A node's values (row-major) when they follow from the data alone, else undefined. */
  values(n: Node): Float64Array | undefined {
    if (readsParams(n)) return undefined;
    // Depth first, inputs before the node, stopping at nodes already evaluated.
    const stack: [Node, boolean][] = [[n, false]];
    while (stack.length > 0) {
      const [node, expanded] = stack.pop()!;
      if (this.memo.has(node)) continue;
      if (!expanded && !this.isLeaf(node)) {
        stack.push([node, true]);
        for (const i of node.inputs) if (!this.memo.has(i)) stack.push([i, false]);
        continue;
      }
      this.memo.set(node, this.evaluate(node));
    }
    return this.memo.get(n) ?? undefined;
  }

  private isLeaf(node: Node): boolean {
    return node.inputs.length === 0 || OPAQUE.has(node.op);
  }

  private evaluate(node: Node): Float64Array | null {
    if (OPAQUE.has(node.op)) return null;
    if (node.op === "const") {
      const v = node.attrs.value!;
      return typeof v === "number" ? new Float64Array(node.size).fill(v) : Float64Array.from(v);
    }
    if (node.op === "data") {
      const v = this.data[node.attrs.name!];
      return v && v.data.length === node.size ? Float64Array.from(v.data) : null;
    }
    const ins = node.inputs.map((i) => this.memo.get(i) ?? null);
    if (ins.some((i) => i === null)) return null;
    if (node.op === "reshape") return ins[0]!;
    if (node.op === "slice") return sliceOf(node, ins[0]!);
    // One op on the interpreter, its inputs bound as data leaves of their shapes and dtypes.
    const leaves = node.inputs.map((i, k) => dataLeaf(`known:${k}`, i.shape, i.dtype));
    const one = Node.make(node.op, node.dtype, node.shape, leaves, node.attrs);
    const bindings = Object.fromEntries(node.inputs.map((i, k) => [`known:${k}`, { dtype: i.dtype, shape: i.shape, data: ins[k]! }]));
    return Float64Array.from(interpret([one], bindings)[0]!.data);
  }
}

// A slice's entries read straight from its input (reading y[n] of a long data array copies nothing else).
function sliceOf(node: Node, x: Float64Array): Float64Array {
  const { starts, steps } = node.attrs as { starts: readonly number[]; steps: readonly number[] };
  const inShape = node.inputs[0]!.shape;
  const strides = inShape.map((_, k) => inShape.slice(k + 1).reduce((a, b) => a * b, 1));
  const out = new Float64Array(node.size);
  const idx = new Array<number>(node.rank).fill(0);
  for (let o = 0; o < out.length; o++) {
    let at = 0;
    for (let k = 0; k < node.rank; k++) at += (starts[k]! + idx[k]! * steps[k]!) * strides[k]!;
    out[o] = x[at]!;
    for (let k = node.rank - 1; k >= 0; k--) {
      if (++idx[k]! < node.shape[k]!) break;
      idx[k] = 0;
    }
  }
  return out;
}
