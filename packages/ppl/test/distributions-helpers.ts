import { data, interpret, type Bindings, type Node } from "@ppl/tensor";

/** Values of a node under bindings, by the reference interpreter. */
export function evaluate(node: Node, bindings: Bindings = {}): Float64Array {
  return interpret([node], bindings)[0]!.data;
}

/** n data leaves named p0, p1, … of shape [n] and their bindings, one column per parameter. */
export function columns(rows: readonly (readonly number[])[]): { nodes: Node[]; bindings: Record<string, Float64Array> } {
  const width = rows[0]!.length;
  const nodes: Node[] = [];
  const bindings: Record<string, Float64Array> = {};
  for (let c = 0; c < width; c++) {
    nodes.push(data(`p${c}`, [rows.length]));
    bindings[`p${c}`] = Float64Array.from(rows, (r) => r[c]!);
  }
  return { nodes, bindings };
}

/** |a − b| ≤ tol·(1 + |b|), treating equal infinities as close. */
export function close(a: number, b: number, tol: number): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= tol * (1 + Math.abs(b));
}
