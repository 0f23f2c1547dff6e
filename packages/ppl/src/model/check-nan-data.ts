import { interpret, type Node, type TensorValue } from "@ppl/tensor";
import { toposort } from "@ppl/tensor/internals";
import type { DeclaredParam, DeclaredTerm } from "./builder.ts";
import { DataError } from "./errors.ts";
import { entryName } from "./stan-names.ts";

/**
 * NaN is data (Stan's JSON reads "NaN"), but a term of the log density that reads a NaN datum is
 * NaN wherever the sampler goes. Once the model is built, each term that reads a data field holding
 * NaN is evaluated at one point twice, with the NaN entries as given and with them set to 0: NaN the
 * first time only is the data's doing, a DataError naming the entry and the term. A term that masks
 * its NaN entries (select(isNan(y), 0, …)) passes.
 */
export function checkNanData(terms: readonly DeclaredTerm[], params: readonly DeclaredParam[], bindings: Readonly<Record<string, TensorValue>>): void {
  const withNan = Object.keys(bindings).filter((k) => holdsNan(bindings[k]!));
  if (withNan.length === 0) return;
  // The point: every unconstrained coordinate at 0.
  const point: Record<string, TensorValue> = {};
  for (const p of params) point[String(p.leaf.attrs.name)] = { dtype: "f64", shape: p.leaf.shape, data: new Float64Array(p.leaf.size) };
  const cleaned: Record<string, TensorValue> = {};
  for (const k of withNan) cleaned[k] = { dtype: "f64", shape: bindings[k]!.shape, data: bindings[k]!.data.map((v) => (Number.isNaN(v) ? 0 : v)) };
  for (const term of terms) {
    const node = term.pointwise ?? term.value;
    const read = toposort([node]).filter((n) => n.op === "data" && withNan.includes(String(n.attrs.name)));
    if (read.length === 0) continue;
    const asGiven = interpret([node], { ...bindings, ...point })[0]!.data;
    const firstNan = asGiven.findIndex(Number.isNaN);
    if (firstNan < 0) continue;
    if (interpret([node], { ...bindings, ...cleaned, ...point })[0]!.data.some(Number.isNaN)) continue;
    throw nanError(term, node, read, bindings, firstNan);
  }
}

// A plain loop over the values as stored: a field kept in 32 bits is not converted to 64 (a design
// matrix of millions of entries that a GPU run uploads as it is).
function holdsNan(v: TensorValue): boolean {
  const values = v.f32 ?? v.data;
  for (let i = 0, n = values.length; i < n; i++) if (values[i] !== values[i]) return true;
  return false;
}

function nanError(term: DeclaredTerm, node: Node, read: readonly Node[], bindings: Readonly<Record<string, TensorValue>>, at: number): DataError {
  // The entry of the same position where the datum has the term's shape (y in observe(y, …)), else the first NaN of the first field read.
  const same = read.find((n) => n.shape.join() === node.shape.join() && Number.isNaN(bindings[String(n.attrs.name)]!.data[at]!));
  const source = same ?? read[0]!;
  const key = String(source.attrs.name);
  const value = bindings[key]!;
  const entry = same !== undefined ? at : value.data.findIndex(Number.isNaN);
  return new DataError(
    key,
    `'${entryName(key, value.shape, entry)}' is NaN, and ${term.label} reads it: the log density would be NaN at every point. ` +
      `Remove the entry, or leave it out of the term (a missing value can be a parameter of the model)`,
  );
}

