import { type Node, type Operand, type Shape } from "@ppl/tensor";
import { broadcastShapes, lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";

/**
 * A bijection (up to the unit vector's radius) from an unconstrained flat vector onto a
 * parameter's constrained values, bound to one constrained shape.
 */
export interface Transform {
  /** The constraint's name, for messages and paramInfo. */
  readonly name: string;
  /** Shape of the constrained value. */
  readonly shape: Shape;
  /** Number of constrained values. */
  readonly constrainedSize: number;
  /** Length of the unconstrained vector (K−1 for a K-simplex, K(K−1)/2 for a K×K correlation Cholesky factor). */
  readonly unconstrainedSize: number;
  /** Constrained value of `shape` from an unconstrained vector [unconstrainedSize]. */
  forward(u: Node): Node;
  /** Unconstrained vector [unconstrainedSize] from a constrained value of `shape` (for user inits and tests). */
  inverse(x: Node): Node;
  /** log |det J| of forward at u, a scalar (the unit vector adds its −|u|²/2 radius term here instead). */
  logJacobian(u: Node): Node;
}

/** What a parameter is constrained to; bound to the parameter's shape when the model compiles. */
export interface Constraint {
  readonly name: string;
  /** The transform for a parameter of this constrained shape; a shape the constraint cannot take is a ModelError. */
  bind(shape: Shape): Transform;
}

/** True for Constraint objects. */
export function isConstraint(x: unknown): x is Constraint {
  return typeof x === "object" && x !== null && typeof (x as Constraint).bind === "function" && typeof (x as Constraint).name === "string";
}

/** Check that a bound broadcasts to the parameter's shape. */
export function checkBound(constraint: string, what: string, bound: Operand, shape: Shape): void {
  const bs = lift(bound).shape;
  let ok = true;
  try {
    const out = broadcastShapes(constraint, bs, shape);
    ok = out.length === shape.length && out.every((d, i) => d === shape[i]);
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new ModelError(`${constraint}: the ${what} bound has shape [${bs.join(",")}], which does not broadcast to the parameter's shape [${shape.join(",")}]; give a scalar bound or one of the parameter's shape`);
  }
}

/** The fix for bounds that are not lower < upper: swapping helps only when they are reversed. */
export function boundOrderFix(lower: number, upper: number): string {
  if (Number.isNaN(lower) || Number.isNaN(upper)) return "give both bounds as numbers";
  if (lower === upper) return "they are equal, and an interval needs room between its bounds: widen it (a value fixed at one number is a constant, not a parameter)";
  return "swap them";
}
