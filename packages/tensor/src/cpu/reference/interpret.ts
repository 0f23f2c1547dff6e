import { GraphError } from "../../ir/errors.ts";
import type { Node } from "../../ir/node.ts";
import { fmt, sameShape, sizeOf, stridesOf } from "../../ir/shape.ts";
import { toposort } from "../../graph/toposort.ts";
import { roundInPlace, type TensorValue } from "../value.ts";
import { referenceKernel } from "./kernels.ts";

/** Values bound to a graph's named inputs (params and data). */
export type Bindings = Readonly<Record<string, TensorValue | ArrayLike<number> | number>>;

/** Evaluate `outputs` with the reference interpreter: plain loops over Float64Array, the oracle for every backend. */
export function interpret(outputs: readonly Node[], inputs: Bindings, args: readonly Float64Array[] = []): TensorValue[] {
  const env = new Map<Node, Float64Array | Float64Array[]>();
  for (const node of toposort(outputs)) env.set(node, evalNode(node, env, inputs, args));
  return outputs.map((o) => ({ dtype: o.dtype, shape: o.shape, data: env.get(o) as Float64Array }));
}

function evalNode(node: Node, env: Map<Node, Float64Array | Float64Array[]>, inputs: Bindings, args: readonly Float64Array[]): Float64Array | Float64Array[] {
  const ins = node.inputs.map((i) => env.get(i) as Float64Array);
  switch (node.op) {
    case "param":
    case "data":
      return bind(node, inputs);
    case "const": {
      const v = node.attrs.value!;
      return typeof v === "number" ? new Float64Array(node.size).fill(v) : Float64Array.from(v);
    }
    case "arg": {
      const a = args[node.attrs.index!];
      if (!a) throw new GraphError(`arg ${node.attrs.index} is unbound (an arg outside a scan body)`);
      return a;
    }
    case "scan":
      return runScan(node, ins, inputs);
    case "tuple_get":
      return (env.get(node.inputs[0]!) as Float64Array[])[node.attrs.index!]!;
    default:
      return roundInPlace(node.dtype, referenceKernel(node, ins));
  }
}

function bind(node: Node, inputs: Bindings): Float64Array {
  return roundInPlace(node.dtype, Float64Array.from(boundValues(node, inputs)));
}

/**
 * The values bound to a param or data node, checked against its shape, as every backend binds
 * them: a GraphError names the node when the value is missing or of another shape or size.
 */
export function boundValues(node: Node, inputs: Bindings): ArrayLike<number> {
  const name = node.attrs.name!;
  const v = inputs[name];
  if (v === undefined) throw new GraphError(`no value bound for ${node.op} '${name}'`);
  let data: ArrayLike<number>;
  if (typeof v === "number") data = [v];
  else if ("data" in v && "shape" in v) {
    if (!sameShape(v.shape, node.shape)) throw new GraphError(`${node.op} '${name}' has shape ${fmt(v.shape)}, the graph expects ${fmt(node.shape)}`);
    data = v.data;
  } else data = v as ArrayLike<number>;
  if (data.length !== sizeOf(node.shape)) throw new GraphError(`${node.op} '${name}' has ${data.length} values, the graph expects ${sizeOf(node.shape)} (shape ${fmt(node.shape)})`);
  return data;
}

function runScan(node: Node, ins: Float64Array[], inputs: Bindings): Float64Array[] {
  const body = node.attrs.body!;
  const length = node.attrs.length!;
  const outs = node.attrs.outputs!;
  let carry = ins.slice(0, body.nCarry);
  const xs = ins.slice(body.nCarry, body.nCarry + body.nX);
  const consts = ins.slice(body.nCarry + body.nX);
  const xNodes = node.inputs.slice(body.nCarry, body.nCarry + body.nX);
  const yOuts = outs.slice(body.nCarry).map((o) => new Float64Array(sizeOf(o.shape)));
  for (let s = 0; s < length; s++) {
    const t = node.attrs.reverseScan ? length - 1 - s : s;
    const xt = xs.map((x, k) => {
      const step = stridesOf(xNodes[k]!.shape)[0]!;
      return x.slice(t * step, (t + 1) * step);
    });
    const res = interpret(body.outputs, inputs, [...carry, ...xt, ...consts]);
    const next = res.slice(0, body.nCarry).map((r) => r.data);
    // Without xs and ys a step depends on the carries alone: at a fixed point every later step is the same (as compiled/scan.ts).
    const fixed = body.nX === 0 && outs.length === body.nCarry && next.every((c, k) => c.every((v, i) => Object.is(v, carry[k]![i])));
    carry = next;
    if (fixed) break;
    res.slice(body.nCarry).forEach((y, k) => yOuts[k]!.set(y.data, t * y.data.length));
  }
  return [...carry, ...yOuts];
}
