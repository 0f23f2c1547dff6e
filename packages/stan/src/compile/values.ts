import { constant, stack, index, type Node } from "@ppl/tensor";

/**
 * A value while a program is traced: a number known now (ints, literals, loop indices), a graph
 * node, or the cells of an array, vector or matrix being filled entry by entry (a local assigned
 * in a loop), which become one node when the whole value is read.
 */
export type Val = number | Node | Cells;

/** An array (or vector, or matrix) held entry by entry along its first axis. */
export interface Cells {
  readonly cells: Val[];
  /** The shape of one cell. */
  readonly cellShape: readonly number[];
}

export const isCells = (v: Val): v is Cells => typeof v === "object" && "cells" in v;

/** The value as one node (cells stacked; numbers as constants). */
export function materialize(v: Val): Node {
  if (typeof v === "number") return constant(v);
  if (!isCells(v)) return v;
  if (v.cells.length === 0) return constant(0, [0, ...v.cellShape]);
  if (v.cells.every((c) => typeof c === "number")) return constant(v.cells as number[], [v.cells.length]);
  return stack(v.cells.map((c) => materializeShaped(c, v.cellShape)));
}

function materializeShaped(v: Val, shape: readonly number[]): Node {
  if (typeof v === "number") return constant(v, shape);
  return materialize(v);
}

/** The shape of a value. */
export function shapeOf(v: Val): readonly number[] {
  if (typeof v === "number") return [];
  if (isCells(v)) return [v.cells.length, ...v.cellShape];
  return v.shape;
}

/** The value held as cells along its first axis (a node is split into its entries). */
export function toCells(v: Val): Cells {
  if (isCells(v)) return v;
  const n = materialize(v);
  if (n.rank === 0) throw new Error("toCells: a scalar has no entries");
  // A constant of one value (a declared, unassigned variable) splits into numbers, not nodes.
  if (n.op === "const" && typeof n.attrs.value === "number") return toCellsOfNumber(n.attrs.value, n.shape);
  return { cells: Array.from({ length: n.shape[0]! }, (_, i) => index(n, i, 0)), cellShape: n.shape.slice(1) };
}

function toCellsOfNumber(value: number, shape: readonly number[]): Cells {
  const rest = shape.slice(1);
  return { cells: Array.from({ length: shape[0]! }, () => (rest.length === 0 ? value : constant(value, rest))), cellShape: rest };
}

/** A value of the given shape whose every entry is `fill` (Stan's NaN for a declared, unassigned real). */
export function filled(shape: readonly number[], fill: number): Val {
  return shape.length === 0 ? fill : constant(fill, shape);
}

/** A copy of cells (nested cells too), so that assigning into one variable does not change another. */
export function copyVal(v: Val): Val {
  return isCells(v) ? { cells: v.cells.map(copyVal), cellShape: v.cellShape } : v;
}

const PARAM_MEMO = new WeakMap<Node, boolean>();

/** Whether a node reads a parameter (a param leaf), that is, whether it is not data only. */
export function readsParams(v: Val): boolean {
  if (typeof v === "number") return false;
  if (isCells(v)) return v.cells.some(readsParams);
  const stack: Node[] = [v];
  const seen: Node[] = [];
  let found = false;
  while (stack.length > 0 && !found) {
    const n = stack.pop()!;
    const known = PARAM_MEMO.get(n);
    if (known !== undefined) {
      found = known;
      continue;
    }
    if (n.op === "param") {
      found = true;
      break;
    }
    seen.push(n);
    stack.push(...n.inputs);
  }
  // Only a negative answer holds for every node visited; a positive one is recorded for the root.
  if (!found) for (const n of seen) PARAM_MEMO.set(n, false);
  else PARAM_MEMO.set(v, true);
  return found;
}
