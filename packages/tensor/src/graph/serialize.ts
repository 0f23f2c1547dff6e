/**
 * Graphs as plain data, to be sent to another thread (postMessage, workerData) and rebuilt there.
 * Rebuilding goes through Node.make, so the nodes hash-cons to the same hashes as the originals and
 * any backend compiles them to the same program: a worker thread computes the same bits.
 */
import { GraphError } from "../ir/errors.ts";
import { Node, type Attrs } from "../ir/node.ts";
import type { Op } from "../ir/ops.ts";
import type { DType } from "../ir/dtype.ts";

/** A scan body's attributes with its outputs given as node indices. */
export interface SerializedScanBody {
  readonly outputs: readonly number[];
  readonly nCarry: number;
  readonly nX: number;
  readonly nConst: number;
}

/** One node: its inputs (and a scan body's outputs) as indices of earlier nodes. */
export interface SerializedNode {
  readonly op: Op;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly inputs: readonly number[];
  readonly attrs: Readonly<Omit<Attrs, "body">> & { readonly body?: SerializedScanBody };
}

/** A graph as structured-cloneable data: nodes in an order where every reference points back. */
export interface SerializedGraph {
  readonly nodes: readonly SerializedNode[];
  readonly outputs: readonly number[];
}

/** The graph of `outputs` (scan bodies included) as plain data. */
export function serializeGraph(outputs: readonly Node[]): SerializedGraph {
  const index = new Map<Node, number>();
  const nodes: SerializedNode[] = [];
  // Iterative post-order: deep graphs (long chains of ops) must not overflow the stack.
  const visit = (root: Node): number => {
    const stack: [Node, boolean][] = [[root, false]];
    while (stack.length > 0) {
      const [n, expanded] = stack.pop()!;
      if (index.has(n)) continue;
      const deps = [...n.inputs, ...(n.attrs.body?.outputs ?? [])];
      if (!expanded) {
        stack.push([n, true]);
        for (let i = deps.length - 1; i >= 0; i--) if (!index.has(deps[i]!)) stack.push([deps[i]!, false]);
        continue;
      }
      const { body, ...rest } = n.attrs;
      const attrs = body ? { ...rest, body: { nCarry: body.nCarry, nX: body.nX, nConst: body.nConst, outputs: body.outputs.map((o) => index.get(o)!) } } : rest;
      index.set(n, nodes.length);
      nodes.push({ op: n.op, dtype: n.dtype, shape: n.shape, inputs: n.inputs.map((i) => index.get(i)!), attrs });
    }
    return index.get(root)!;
  };
  const out = outputs.map(visit);
  return { nodes, outputs: out };
}

/** Rebuilds the output nodes of a serialized graph. */
export function deserializeGraph(graph: SerializedGraph): Node[] {
  const built: Node[] = [];
  const ref = (k: number, at: number): Node => {
    const n = built[k];
    if (n === undefined || k >= at) throw new GraphError(`serialized graph: node ${at} refers to node ${k}, which does not come before it`);
    return n;
  };
  graph.nodes.forEach((s, at) => {
    const { body, ...rest } = s.attrs;
    const attrs: Attrs = body ? { ...rest, body: { ...body, outputs: body.outputs.map((k) => ref(k, at)) } } : { ...rest };
    built.push(Node.make(s.op, s.dtype, s.shape, s.inputs.map((k) => ref(k, at)), attrs));
  });
  return graph.outputs.map((k) => ref(k, built.length));
}
