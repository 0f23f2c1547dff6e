import type { Node } from "../../ir/node.ts";
import type { Schedule } from "./loop-nest.ts";

/** A JS array variable and the expression of the element where a tensor starts in it. */
export interface ArrayRef {
  readonly name: string;
  /** "0" or an expression such as `b3o + 12`. */
  readonly offset: string;
}

/** A strided window on an array (see layout.ts). */
export interface StridedRef extends ArrayRef {
  readonly shape: readonly number[];
  readonly strides: readonly number[];
}

/** What kernel renderers ask of the program being generated: names, buffers, constants, child programs. */
export interface RenderContext {
  readonly schedule: Schedule;
  /** Graph-local number of a node (its place in topological order); generated names use it, so output is deterministic. */
  id(n: Node): number;
  /** The array a buffer-owning node (leaf, array constant, written node) is read from. */
  source(n: Node): ArrayRef;
  /** Where a written node is stored. */
  target(n: Node): ArrayRef;
  /** The values of `n` as a contiguous row-major block (the scheduler guarantees one exists; literals become constant arrays). */
  contiguous(n: Node): ArrayRef;
  /** The values of `n` as a strided window (literals become constant arrays). */
  strided(n: Node): StridedRef;
  /** A constant array bound into the generated function; returns its variable name. */
  constArray(values: Float64Array, why: string): string;
  /** A scratch buffer of `size` doubles, allocated once per executable; returns its variable name. */
  scratch(size: number, why: string): string;
  /** Compile a scan body as a child program with `nArgs` argument slots; returns its index in `C`. */
  child(outputs: readonly Node[], nArgs: number): number;
}

/** Join terms of an index expression, dropping zeros. */
export function sumExpr(...terms: (string | number)[]): string {
  const parts = terms.filter((t) => t !== 0 && t !== "0").map(String);
  return parts.length === 0 ? "0" : parts.join(" + ");
}

/** `v * stride` without the noise of multiplying by 0 or 1. */
export function scaled(v: string, stride: number): string | number {
  return stride === 0 ? 0 : stride === 1 ? v : `${v} * ${stride}`;
}
