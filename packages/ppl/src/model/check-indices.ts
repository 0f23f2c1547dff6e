import { interpret, type Node, type TensorValue } from "@ppl/tensor";
import { isElementwise, toposort } from "@ppl/tensor/internals";
import type { CheckedData } from "./check-data.ts";
import type { DataSpec } from "./data-spec.ts";
import { DataError } from "./errors.ts";
import { entryName } from "./stan-names.ts";

/**
 * Indices are data: every gather and scatter_add of a model's graphs whose indices are computed
 * from data alone (a.at(d.group) gathers at d.group − 1) is checked here, once the model is built
 * and before anything runs. A bad entry is a DataError naming the data key, the entry, its value
 * and the positions allowed, as the user wrote them (1-based for at()). The backends check what
 * reaches them too (the CPU throws, the GPU clamps a gather and drops a scatter's entry), but by
 * then the index is an internal value of the graph and the message could not name the data.
 */
export function checkDataIndices(roots: readonly Node[], spec: DataSpec, checked: CheckedData, bindings: Readonly<Record<string, TensorValue>>): void {
  const order = toposort(roots);
  const fromData = dataOnly(order);
  for (const n of order) {
    if (n.op !== "gather" && n.op !== "scatter_add") continue;
    const ind = n.inputs[1]!;
    if (!fromData.has(ind) || ind.op === "const") continue;
    const axis = n.attrs.axis!;
    const size = n.op === "gather" ? n.inputs[0]!.shape[axis]! : n.shape[axis]!;
    // In graph order: an index computed by an earlier gather of data was checked before it is read here.
    const values = interpret([ind], bindings)[0]!.data;
    let bad = -1;
    for (let e = 0; e < values.length; e++) {
      const j = values[e]!;
      if (!(j >= 0 && j < size)) {
        bad = e;
        break;
      }
    }
    if (bad >= 0) throw indexError(ind, values, bad, size, spec, checked);
  }
}

// The nodes computed from data and constants alone (no parameter, no scan argument).
function dataOnly(order: readonly Node[]): Set<Node> {
  const out = new Set<Node>();
  for (const n of order) {
    if (n.op === "param" || n.op === "arg" || n.op === "scan") continue;
    if (n.inputs.every((i) => out.has(i))) out.add(n);
  }
  return out;
}

function indexError(ind: Node, values: Float64Array, bad: number, size: number, spec: DataSpec, checked: CheckedData): DataError {
  const sources = toposort([ind]).filter((n) => n.op === "data");
  const names = [...new Set(sources.map((s) => String(s.attrs.name)))];
  const sizeName = Object.keys(spec).find((k) => spec[k]!.kind === "int" && checked[k]?.data[0] === size);
  const sized = sizeName === undefined ? `${size}` : `${sizeName} = ${size}`;
  const source = sources.length === 1 ? sources[0]! : undefined;
  const value = source !== undefined ? checked[String(source.attrs.name)] : undefined;
  if (source === undefined || value === undefined || !entrywise(ind, source)) {
    const what = names.length === 0 ? "an index" : `an index computed from ${names.map((k) => `'${k}'`).join(", ")}`;
    return new DataError(names[0] ?? "", `${what} is ${values[bad]} at entry ${bad + 1}, outside the ${sized} positions it selects from (0-based 0..${size - 1}); fix the data`);
  }
  // The index is the data entry by entry, shifted: at() reads group[i] as position group[i] − 1.
  const key = String(source.attrs.name);
  const given = value.data[bad]!;
  const shift = given - values[bad]!;
  const constantShift = values.every((j, e) => value.data[e]! - j === shift);
  const where = entryName(key, value.shape, bad);
  if (!constantShift) {
    return new DataError(key, `'${where}' is ${given}, which makes index ${values[bad]} outside the ${sized} positions it selects from (0-based 0..${size - 1}); fix the entry`);
  }
  const first = shift;
  const last = shift + size - 1;
  const declared = sizeName !== undefined && first === 1 ? `; declaring the range in the data spec (lower: 1, upper: "${sizeName}") makes the data check say so` : "";
  return new DataError(key, `'${where}' is ${given}, but it indexes ${sized} entries, so it must lie in ${first}..${last}${first === 1 ? " (1-based, as at() reads it)" : ""}; fix the entry${declared}`);
}

// True when entry e of `ind` is computed from entry e of `source` alone (row-major positions):
// every node between them is elementwise or a reshape, of the index's size, its other inputs
// scalar constants.
function entrywise(ind: Node, source: Node): boolean {
  if (source.size !== ind.size) return false;
  for (const n of toposort([ind])) {
    if (n === source) continue;
    if (n.op === "const") {
      if (n.size !== 1) return false;
      continue;
    }
    if (n.op === "data" || !(isElementwise(n.op) || n.op === "reshape")) return false;
    if (n.size !== ind.size) return false;
  }
  return true;
}
