import { Node } from "../ir/node.ts";
import { arg } from "../api/leaves.ts";
import { substitute } from "../graph/substitute.ts";
import { toposort } from "../graph/toposort.ts";
import { bodyArgs } from "./scan-bodies.ts";

/** The nodes a backend must evaluate for `outputs`: everything reachable from them (scan bodies are separate graphs). */
export function liveNodes(outputs: readonly Node[]): Set<Node> {
  return new Set(toposort(outputs));
}

/**
 * Remove work nobody reads. Outside scans that is free: a graph is what its outputs reach. Inside
 * scans it is not: a scan computes all its carries and ys whether or not anyone reads them, so
 * ys no tuple_get reads, carries neither read nor needed by a kept output, and xs/consts the
 * remaining body never touches are dropped, and tuple_get indices renumbered.
 */
export function deadCode(outputs: readonly Node[]): Node[] {
  const used = new Map<Node, Set<number>>();
  for (const n of toposort(outputs)) {
    if (n.op === "tuple_get") {
      const s = used.get(n.inputs[0]!) ?? new Set<number>();
      s.add(n.attrs.index!);
      used.set(n.inputs[0]!, s);
    }
  }
  const memo = new Map<Node, Node>();
  const renumber = new Map<Node, Map<number, number>>();
  for (const n of toposort(outputs)) {
    const inputs = n.inputs.map((i) => memo.get(i)!);
    if (n.op === "scan") {
      const pruned = pruneScan(n, inputs, used.get(n) ?? new Set());
      memo.set(n, pruned.node);
      renumber.set(n, pruned.outIndex);
    } else if (n.op === "tuple_get") {
      const index = renumber.get(n.inputs[0]!)!.get(n.attrs.index!)!;
      memo.set(n, Node.make("tuple_get", n.dtype, n.shape, inputs, { index }));
    } else {
      memo.set(n, inputs.every((x, k) => x === n.inputs[k]) ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs));
    }
  }
  return outputs.map((o) => memo.get(o)!);
}

// A scan keeping only what `usedOuts` needs; outIndex maps old output indices to new ones.
function pruneScan(scan: Node, inputs: readonly Node[], usedOuts: ReadonlySet<number>): { node: Node; outIndex: Map<number, number> } {
  const body = scan.attrs.body!;
  const { nCarry, nX } = body;
  const keepCarry = new Set<number>();
  for (const k of usedOuts) if (k < nCarry) keepCarry.add(k);
  const keepY = [...usedOuts].filter((k) => k >= nCarry).sort((a, b) => a - b);
  // A carry is needed if a kept output reads it, directly or through other carries: grow to a fixed point.
  let reads: Map<number, Node>;
  for (;;) {
    reads = bodyArgs([...[...keepCarry].map((k) => body.outputs[k]!), ...keepY.map((k) => body.outputs[k]!)]);
    const before = keepCarry.size;
    for (const i of reads.keys()) if (i < nCarry) keepCarry.add(i);
    if (keepCarry.size === before) break;
  }
  const carries = [...keepCarry].sort((a, b) => a - b);
  const argList = [...carries, ...[...reads.keys()].filter((i) => i >= nCarry).sort((a, b) => a - b)];
  const nX2 = argList.filter((i) => i >= nCarry && i < nCarry + nX).length;
  const nConst2 = argList.length - carries.length - nX2;
  const bodyOut = [...carries, ...keepY].map((k) => body.outputs[k]!);
  const outIndex = new Map<number, number>([...carries, ...keepY].map((k, j) => [k, j]));
  const unchanged = argList.length === scan.inputs.length && bodyOut.length === body.outputs.length;
  if (unchanged) {
    const same = inputs.every((x, k) => x === scan.inputs[k]);
    return { node: same ? scan : Node.make("scan", scan.dtype, scan.shape, inputs, scan.attrs), outIndex };
  }
  // Renumber the args that remain; a carry that is kept but never read keeps its slot without an arg node.
  const renamed = new Map<Node, Node>();
  argList.forEach((i, j) => {
    const a = reads.get(i);
    if (a) renamed.set(a, arg(j, a.shape, a.dtype, a.attrs.depth!));
  });
  const outputs = scan.attrs.outputs!;
  const node = Node.make("scan", scan.dtype, scan.shape, argList.map((i) => inputs[i]!), {
    ...scan.attrs,
    body: { outputs: substitute(bodyOut, renamed), nCarry: carries.length, nX: nX2, nConst: nConst2 },
    outputs: [...carries, ...keepY].map((k) => outputs[k]!),
  });
  return { node, outIndex };
}
