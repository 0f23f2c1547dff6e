import { Node, type ScanBody } from "../ir/node.ts";
import { toposort } from "../graph/toposort.ts";

/** A scan node with a new body (same inputs, lengths and output types). */
export function withBody(scan: Node, outputs: readonly Node[], inputs: readonly Node[] = scan.inputs): Node {
  const old = scan.attrs.body!;
  const same = inputs.every((x, k) => x === scan.inputs[k]) && outputs.every((o, k) => o === old.outputs[k]);
  if (same) return scan;
  const body: ScanBody = { outputs: [...outputs], nCarry: old.nCarry, nX: old.nX, nConst: old.nConst };
  return Node.make("scan", scan.dtype, scan.shape, inputs, { ...scan.attrs, body });
}

/** Rebuild every scan of the graph (outermost level) with its body outputs passed through `f`. */
export function mapScanBodies(outputs: readonly Node[], f: (body: readonly Node[]) => Node[]): Node[] {
  const memo = new Map<Node, Node>();
  for (const n of toposort(outputs)) {
    const inputs = n.inputs.map((i) => memo.get(i)!);
    if (n.op === "scan") memo.set(n, withBody(n, f(n.attrs.body!.outputs), inputs));
    else memo.set(n, inputs.every((x, k) => x === n.inputs[k]) ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs));
  }
  return outputs.map((o) => memo.get(o)!);
}

/** The arg leaves a body graph reads, by index (nested bodies bring their own args in as consts, so all are at one depth). */
export function bodyArgs(outputs: readonly Node[]): Map<number, Node> {
  const args = new Map<number, Node>();
  for (const n of toposort(outputs)) if (n.op === "arg") args.set(n.attrs.index!, n);
  return args;
}
