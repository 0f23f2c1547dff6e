import { Node } from "../ir/node.ts";
import { rebuild } from "../graph/substitute.ts";
import { toposort } from "../graph/toposort.ts";

/**
 * Scans that run one recurrence become one scan. Two scans with the same inputs, length and
 * direction whose bodies compute the same carries (interning makes that an identity test) differ
 * only in their ys, so one scan with the carries and every y of either computes what both did.
 * The gradient's scan rule builds exactly such a pair: the value's forward scan, and a forward
 * scan of the same body that stacks the carries entering every step for the reverse pass.
 * Without this the recurrence ran twice. Each value is computed as before, so the bits are too.
 */
export function mergeScans(outputs: readonly Node[]): Node[] {
  const order = toposort(outputs);
  const groups = new Map<string, Node[]>();
  for (const n of order) {
    if (n.op !== "scan") continue;
    const key = recurrenceKey(n);
    const g = groups.get(key);
    if (g) g.push(n);
    else groups.set(key, [n]);
  }
  // Each merged scan: the scan that replaces it and where each of its outputs is there.
  const into = new Map<Node, { scan: Node; index: readonly number[] }>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const first = group[0]!;
    const nCarry = first.attrs.body!.nCarry;
    const outs = first.attrs.body!.outputs.slice(0, nCarry);
    const types = first.attrs.outputs!.slice(0, nCarry);
    const at = new Map<Node, number>();
    const indices = group.map((s) =>
      s.attrs.body!.outputs.map((o, k) => {
        if (k < nCarry) return k;
        let j = at.get(o);
        if (j === undefined) {
          j = outs.length;
          outs.push(o);
          types.push(s.attrs.outputs![k]!);
          at.set(o, j);
        }
        return j;
      }),
    );
    const body = first.attrs.body!;
    const merged = Node.make("scan", first.dtype, first.shape, first.inputs, { ...first.attrs, body: { ...body, outputs: outs }, outputs: types });
    group.forEach((s, i) => into.set(s, { scan: merged, index: indices[i]! }));
  }
  if (into.size === 0) return [...outputs];
  return rebuild(outputs, (n, inputs) => {
    const source = n.op === "tuple_get" ? into.get(n.inputs[0]!) : undefined;
    if (source) {
      // The merged scan has the inputs of every scan it replaces: those of the rebuilt one read here.
      const { scan, index } = source;
      const merged = Node.make("scan", scan.dtype, scan.shape, inputs[0]!.inputs, scan.attrs);
      return Node.make("tuple_get", n.dtype, n.shape, [merged], { index: index[n.attrs.index!]! });
    }
    return inputs.every((x, k) => x === n.inputs[k]) ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs);
  });
}

// Scans with equal keys run the same recurrence: same inputs, length, direction and carries.
function recurrenceKey(n: Node): string {
  const body = n.attrs.body!;
  const carries = body.outputs.slice(0, body.nCarry).map((o) => o.hash);
  return [n.attrs.length, n.attrs.reverseScan ?? false, body.nCarry, body.nX, n.inputs.map((x) => x.hash).join(","), carries.join(",")].join("|");
}
