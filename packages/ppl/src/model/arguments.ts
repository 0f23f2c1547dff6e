import type { Operand } from "@ppl/tensor";
import { isOperand } from "@ppl/tensor/internals";
import { ModelError } from "./errors.ts";

// The checks of arguments given to the functions a model file calls. A model file is often run
// without a type check, so a wrongly typed argument reaches them at run time: each is named in a
// ModelError thrown from the call, whose stack gives the line of the model file.

/** A value as messages show it: the string "0", undefined, an object. */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "undefined";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + "…" : v)}`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === "function") return "a function";
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}

/** Throws a ModelError unless `value` is a number or a tensor: `normal: 'mu' must be a number or a tensor, got the string "0"`. */
export function checkOperand(fn: string, name: string, value: unknown): asserts value is Operand {
  if (!isOperand(value)) {
    const hint = Array.isArray(value) ? "; make a list of numbers a tensor with constant([...], [n])" : typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value)) ? `; write ${value} without quotes` : "";
    throw new ModelError(`${fn}: '${name}' must be a number or a tensor, got ${describeValue(value)}${hint}`);
  }
}

/** Throws a ModelError unless `value` is a whole number ≥ `min` (a size fixed when the model is built). */
export function checkCount(fn: string, name: string, value: unknown, min = 0): asserts value is number {
  if (!(typeof value === "number" && Number.isInteger(value) && value >= min)) {
    throw new ModelError(`${fn}: '${name}' must be a whole number ≥ ${min} (a size known when the model is built), got ${describeValue(value)}`);
  }
}
