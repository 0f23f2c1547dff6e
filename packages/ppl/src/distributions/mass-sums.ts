import { and, constant, floor, ge, le, logsumexp, lt, or, reshape, select, type Node, type Operand } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";

/**
 * The log CDFs of a count distribution with no closed form, as sums of its mass function over a
 * table of counts 0..terms − 1 on a trailing axis (the table's size is fixed when the graph is
 * built, so it renders to one reduction on every backend). Each side is summed over its own counts,
 * so neither tail is 1 minus the other.
 */

/** Parameters with a trailing axis, to broadcast against the table of counts. */
export const countAxis = (x: Operand): Node => {
  const n = lift(x);
  return reshape(n, [...n.shape, 1]);
};

/**
 * log P(Y ≤ ⌊y⌋) (lower) or log P(⌊y⌋ < Y ≤ top) from `logMass(k)`, the log mass at the table's
 * counts k (shape [terms]; parameters enter through countAxis), for a distribution on 0..top with
 * top ≤ terms − 1. Below 0 they are −∞ and 0, from top up 0 and −∞; in between ⌊y⌋ is clamped
 * into 0..top − 1, so that each side keeps a count, and the mass is read only at counts up to top
 * (beyond it the mass function's lgammas are NaN, whose gradients a select would not stop).
 */
export function logMassSum(y: Operand, logMass: (k: Node) => Node, terms: number, top: Operand, lower: boolean): Node {
  const yf = floor(lift(y));
  const below = lt(yf, 0), atTop = ge(yf, top);
  const yc = countAxis(select(or(below, atTop), 0, yf));
  const k = constant(Array.from({ length: terms }, (_, i) => i), [terms]);
  const valid = le(k, countAxis(top));
  const mass = logMass(select(valid, k, 0));
  const side = lower ? le(k, yc) : and(lt(yc, k), valid);
  const inside = logsumexp(select(side, mass, -Infinity), -1);
  return select(below, lower ? -Infinity : 0, select(atTop, lower ? 0 : -Infinity, inside));
}
