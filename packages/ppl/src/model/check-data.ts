import type { TensorValue } from "@ppl/tensor";
import { DataError, ModelError } from "./errors.ts";
import { describeField, type DataField, type DataSpec, type Size } from "./data-spec.ts";

/** Checked data: every declared field as a host tensor (f64 values; integer fields hold exact integers). */
export type CheckedData = Readonly<Record<string, TensorValue>>;

/** Options of checkData. */
export interface CheckDataOptions {
  /**
   * Accept keys the spec does not declare (Stan ignores them; see unusedDataKeys); by default they
   * are an error, since they are often typos. Keys that name a property of every object are refused either way.
   */
  allowExtraKeys?: boolean;
}

/**
 * Check Stan-format JSON data (scalars as numbers, matrices as arrays of rows) against a spec. An
 * array field may also be one typed array (Float32Array, Float64Array, Int32Array, …) of its
 * entries in row-major order.
 * Throws a DataError naming the key, what was expected and what came.
 */
export function checkData(spec: DataSpec, json: unknown, opts: CheckDataOptions = {}): CheckedData {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new DataError("", `the data must be a JSON object of named fields, got ${kindOf(json)}`);
  }
  const input = json as Record<string, unknown>;
  const declared = Object.keys(spec);
  // Own keys only: `k in spec` would take 'constructor' or '__proto__' for declared fields.
  const extra = unusedDataKeys(spec, input);
  const out: Record<string, TensorValue> = {};
  for (const key of checkOrder(spec)) {
    const f = spec[key]!;
    if (!Object.hasOwn(input, key)) {
      const hint = extra.length > 0 ? ` (the data has undeclared key${extra.length > 1 ? "s" : ""} ${extra.map((e) => `'${e}'`).join(", ")} — a misspelling?)` : "";
      throw new DataError(key, `'${key}' is missing; the model expects ${describeField(f)}${hint}. Add it to the data file`);
    }
    const dims = f.dims.map((d) => resolveSize(spec, out, key, d));
    out[key] = checkField(key, resolveBounds(spec, out, key, f), dims, input[key]);
  }
  // Even where extra keys are allowed, a key that names a property of every object (constructor,
  // __proto__, toString) is refused: code that reads the data as a plain object would find it.
  const refused = opts.allowExtraKeys ? extra.filter((k) => k in Object.prototype) : extra;
  if (refused.length > 0) {
    throw new DataError(refused[0]!, `'${refused[0]}' is not a data field of this model (its fields: ${declared.join(", ") || "none"}); remove it from the data or declare it in the model's data spec`);
  }
  return out;
}

/** The keys of Stan-format JSON data that `spec` does not declare (own keys only), in the data's order. */
export function unusedDataKeys(spec: DataSpec, json: unknown): string[] {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return [];
  return Object.keys(json).filter((k) => !Object.hasOwn(spec, k));
}

// Scalars first (sizes and bounds of the other fields come from them), each field after the
// fields that size or bound it; a cycle of bounds is a ModelError.
function checkOrder(spec: DataSpec): string[] {
  const order: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (key: string, path: readonly string[]): void => {
    if (state.get(key) === "done") return;
    if (state.get(key) === "visiting") throw new ModelError(`data fields ${[...path, key].map((k) => `'${k}'`).join(" → ")} bound each other in a cycle; give one of them a number`);
    state.set(key, "visiting");
    const f = spec[key]!;
    for (const d of [...f.dims, f.lower, f.upper]) if (typeof d === "string" && Object.hasOwn(spec, d)) visit(d, [...path, key]);
    state.set(key, "done");
    order.push(key);
  };
  const keys = Object.keys(spec);
  for (const key of [...keys.filter((k) => spec[k]!.dims.length === 0), ...keys.filter((k) => spec[k]!.dims.length > 0)]) visit(key, []);
  return order;
}

/** A field whose bounds are numbers, with the names of the data fields that gave them (for messages). */
interface ResolvedField extends DataField {
  readonly lower?: number;
  readonly upper?: number;
  readonly boundNames?: { readonly lower?: string; readonly upper?: string };
}

function resolveBounds(spec: DataSpec, out: Record<string, TensorValue>, key: string, f: DataField): ResolvedField {
  if (typeof f.lower !== "string" && typeof f.upper !== "string") return f as ResolvedField;
  const names: { lower?: string; upper?: string } = {};
  const resolved: { lower?: number; upper?: number } = {};
  for (const side of ["lower", "upper"] as const) {
    const b = f[side];
    if (typeof b === "number") resolved[side] = b;
    if (typeof b !== "string") continue;
    const source = spec[b];
    if (!Object.hasOwn(spec, b) || (source!.kind !== "int" && source!.kind !== "real")) {
      throw new ModelError(`data field '${key}' has ${side} bound '${b}', which is not an int or real scalar data field; declare ${b}: data.int() or give a number`);
    }
    resolved[side] = out[b]!.data[0]!;
    names[side] = b;
  }
  return { ...f, lower: resolved.lower, upper: resolved.upper, boundNames: names };
}

function resolveSize(spec: DataSpec, out: Record<string, TensorValue>, key: string, d: Size): number {
  if (typeof d === "number") return d;
  const sizeField = spec[d];
  if (!sizeField || sizeField.kind !== "int") {
    throw new ModelError(`data field '${key}' is sized by '${d}', which is not an int data field; declare ${d}: data.int()`);
  }
  const v = out[d]!.data[0]!;
  if (v < 0) throw new DataError(d, `'${d}' is ${v}, but it sizes '${key}' and a size must be ≥ 0`);
  return v;
}

function checkField(key: string, f: ResolvedField, dims: readonly number[], value: unknown): TensorValue {
  if (dims.length > 0 && isNumericArray(value)) return checkFlat(key, f, dims, value);
  // The nesting is checked before the values are stored: a size such as J = 1e10 is then
  // reported against the array it sizes, rather than as an allocation that fails.
  checkNesting(key, f, dims, value, 0, []);
  const out = { data: new Float64Array(dims.reduce((a, b) => a * b, 1)), n: 0 };
  collect(key, f, dims, value, 0, [], out);
  return { dtype: "f64", shape: dims, data: out.data };
}

/** A typed array of numbers (not a DataView, not 64-bit integers). */
type NumericArray = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array | Uint8ClampedArray;

function isNumericArray(v: unknown): v is NumericArray {
  return ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array);
}

// A field given as one typed array, its entries in row-major order (data read from a binary file,
// such as a design matrix of millions of entries, without nesting it into arrays of rows first).
function checkFlat(key: string, f: ResolvedField, dims: readonly number[], v: NumericArray): TensorValue {
  const size = dims.reduce((a, b) => a * b, 1);
  if (v.length !== size) {
    const expect = dims.map((d, i) => (typeof f.dims[i] === "string" ? `${f.dims[i]}=${d}` : `${d}`)).join(" × ");
    throw new DataError(key, `'${key}' is a typed array of ${v.length} values; the model expects ${expect}${dims.length > 1 ? ` = ${size}, in row-major order` : ""}`);
  }
  const integer = f.integer === true;
  const lower = f.lower ?? -Infinity;
  const upper = f.upper ?? Infinity;
  // A Float32Array (a design matrix read from a binary file) is checked as it is and kept in 32
  // bits, its f64 copy made on first use: a GPU run uploads the f32 values and never needs it,
  // and converting 10M entries cost more than the rest of preparing a run (bench/RESULTS.md).
  // Kept as a copy: the caller may reuse its array.
  if (v instanceof Float32Array && !integer) {
    for (let bad = firstOutside(v, lower, upper, 0); bad >= 0; bad = firstOutside(v, lower, upper, bad + 1)) {
      checkEntry(key, locate(key, flatPosition(dims, bad)), f, v[bad]!);
    }
    return lazyF64({ dtype: "f64", shape: dims, f32: v.slice() });
  }
  // Converted in one native copy, then checked over the Float64Array: a loop reading each kind of
  // typed array in turn would be polymorphic, several times slower per entry.
  const data = new Float64Array(size);
  data.set(v);
  for (let i = 0; i < size; i++) {
    const e = data[i]!;
    if (!(e >= lower && e <= upper && e - e === 0 && (!integer || Number.isSafeInteger(e)))) checkEntry(key, locate(key, flatPosition(dims, i)), f, e);
  }
  return { dtype: "f64", shape: dims, data };
}

// The first entry from `start` on that is not finite or lies outside [lower, upper], or -1. A
// function of its own that only ever sees a Float32Array: inlined in checkFlat, whose array is any
// kind of typed array, the loop's loads stayed polymorphic and took several times as long (10M
// entries: 50 ms).
function firstOutside(v: Float32Array, lower: number, upper: number, start: number): number {
  for (let i = start, n = v.length; i < n; i++) {
    const e = v[i]!;
    if (!(e >= lower && e <= upper && e - e === 0)) return i;
  }
  return -1;
}

// A host tensor of f32 values whose f64 data is converted when first read, then kept.
function lazyF64(v: { dtype: "f64"; shape: readonly number[]; f32: Float32Array }): TensorValue {
  let data: Float64Array | undefined;
  return {
    ...v,
    get data() {
      return (data ??= new Float64Array(v.f32));
    },
  };
}

// The 1-based position of the i-th entry in row-major order.
function flatPosition(dims: readonly number[], i: number): number[] {
  const idx = new Array<number>(dims.length);
  for (let a = dims.length - 1; a >= 0; a--) {
    idx[a] = (i % dims[a]!) + 1;
    i = Math.floor(i / dims[a]!);
  }
  return idx;
}

const locate = (key: string, idx: readonly number[]) => (idx.length > 0 ? `${key}[${idx.join(",")}]` : key);

// Walk the nested arrays, checking each level's length (not the entries).
function checkNesting(key: string, f: ResolvedField, dims: readonly number[], v: unknown, level: number, idx: number[]): void {
  if (level === dims.length) return;
  const sizeName = f.dims[level]!;
  const expectLen = dims[level]!;
  const expect = typeof sizeName === "string" ? `${sizeName}=${expectLen}` : `${expectLen}`;
  if (!Array.isArray(v)) {
    throw new DataError(key, `'${locate(key, idx)}' should be an array of ${expect} ${level === 0 && dims.length === 2 ? "rows" : "entries"} (${describeField(f)}), got ${kindOf(v)}`);
  }
  if (level === 0 && dims.length > 1 && v.length > 0 && !Array.isArray(v[0])) {
    const rows = dims.map((d, i) => (typeof f.dims[i] === "string" ? `${f.dims[i]}=${d}` : `${d}`)).join(" × ");
    throw new DataError(key, `'${key}' is a flat list of ${v.length} values; the model expects nested arrays of ${rows} (Stan's JSON gives a matrix as an array of rows)`);
  }
  if (v.length !== expectLen) {
    const what = dims.length === 2 ? (level === 0 ? "rows" : "entries") : "entries";
    const rowNote = dims.length === 2 && level === 1 ? ` in row ${idx[idx.length - 1]}` : "";
    throw new DataError(key, `'${key}' has ${v.length} ${what}${rowNote}, the model expects ${expect}`);
  }
  if (level === dims.length - 1) return;
  for (let i = 0; i < v.length; i++) {
    idx.push(i + 1);
    checkNesting(key, f, dims, v[i], level + 1, idx);
    idx.pop();
  }
}

// Walk the nested arrays (their nesting already checked), checking and storing each entry. The
// location string of an entry is built only for an error: data can hold millions of entries.
function collect(key: string, f: ResolvedField, dims: readonly number[], v: unknown, level: number, idx: number[], out: { data: Float64Array; n: number }): void {
  if (level === dims.length) {
    out.data[out.n++] = checkEntry(key, locate(key, idx), f, v);
    return;
  }
  if (!Array.isArray(v)) return;
  if (level === dims.length - 1) {
    // The innermost loop runs once per entry (millions for a design matrix): the field's rules
    // and the output position live in locals, and an entry takes the slow path only when it is
    // not a plain finite number within them.
    const data = out.data;
    const integer = f.integer === true;
    const lower = f.lower ?? -Infinity;
    const upper = f.upper ?? Infinity;
    let n = out.n;
    for (let i = 0; i < v.length; i++) {
      const e: unknown = v[i];
      if (typeof e === "number" && e >= lower && e <= upper && e - e === 0 && (!integer || Number.isSafeInteger(e))) data[n++] = e;
      else data[n++] = checkEntry(key, locate(key, [...idx, i + 1]), f, e);
    }
    out.n = n;
    return;
  }
  for (let i = 0; i < v.length; i++) {
    idx.push(i + 1);
    collect(key, f, dims, v[i], level + 1, idx, out);
    idx.pop();
  }
}

// Stan's JSON spellings of the values JSON has no numbers for, as CmdStan reads them.
const NON_FINITE: ReadonlyMap<string, number> = new Map([
  ["NaN", NaN], ["nan", NaN],
  ["Inf", Infinity], ["inf", Infinity], ["Infinity", Infinity], ["+Infinity", Infinity], ["+inf", Infinity],
  ["-Inf", -Infinity], ["-inf", -Infinity], ["-Infinity", -Infinity],
]);

// An entry as a number, or a DataError. NaN and ±∞ are data as in Stan (a missing value, a limit
// of censoring): an integer field refuses them, and a bounded field refuses NaN (it is on no side
// of a bound); a density that reads a NaN is found once the model is built (compile.ts).
function checkEntry(key: string, where: string, f: ResolvedField, given: unknown): number {
  const v = typeof given === "string" ? NON_FINITE.get(given) : given;
  if (typeof v !== "number") {
    const shape = f.dims.length === 0 ? "a number" : "a number at this position";
    throw new DataError(key, `'${where}' should be ${shape} (${describeField(f)}), got ${kindOf(given)}`);
  }
  if (f.integer && !Number.isFinite(v)) throw new DataError(key, `'${where}' is ${v}, but '${key}' holds integers; give a whole number`);
  if (f.integer && !Number.isInteger(v)) throw new DataError(key, `'${where}' is ${v}, but '${key}' holds integers; give a whole number`);
  if (f.integer && !Number.isSafeInteger(v)) {
    throw new DataError(key, `'${where}' is ${v}, beyond the integers a double holds exactly (±9007199254740991, 2^53 − 1); give a smaller integer`);
  }
  if (Number.isNaN(v) && (f.lower !== undefined || f.upper !== undefined)) {
    const range = [f.lower !== undefined ? `≥ ${boundText(f, "lower")}` : "", f.upper !== undefined ? `≤ ${boundText(f, "upper")}` : ""].filter((t) => t !== "").join(" and ");
    throw new DataError(key, `'${where}' is NaN, but the entries of '${key}' must be ${range} and NaN is on no side of a bound; remove or impute the entry`);
  }
  if (f.lower !== undefined && v < f.lower) throw new DataError(key, `'${where}' is ${v}, below the lower bound ${boundText(f, "lower")} of '${key}'`);
  if (f.upper !== undefined && v > f.upper) throw new DataError(key, `'${where}' is ${v}, above the upper bound ${boundText(f, "upper")} of '${key}'`);
  return v;
}

// A bound as messages show it: 1, or G = 8 where the data field G gave it.
function boundText(f: ResolvedField, side: "lower" | "upper"): string {
  const name = f.boundNames?.[side];
  return name === undefined ? String(f[side]) : `${name} = ${f[side]}`;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + "…" : v)}`;
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}
