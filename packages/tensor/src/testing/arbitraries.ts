import fc from "fast-check";
import { sizeOf } from "../ir/shape.ts";

/** Generators of shapes, broadcast-compatible shapes, axes and values for conformance cases. */

/** A shape of rank in [minRank, maxRank] with dimensions in [1, maxDim]. */
export function shapeArb(minRank = 0, maxRank = 3, maxDim = 4): fc.Arbitrary<number[]> {
  return fc.array(fc.integer({ min: 1, max: maxDim }), { minLength: minRank, maxLength: maxRank });
}

/** A shape that broadcasts to `target`: some leading axes dropped, some axes set to 1. */
export function broadcastableTo(target: readonly number[]): fc.Arbitrary<number[]> {
  return fc
    .tuple(fc.integer({ min: 0, max: target.length }), fc.array(fc.boolean(), { minLength: target.length, maxLength: target.length }))
    .map(([drop, ones]) => target.slice(drop).map((d, i) => (ones[i + drop] ? 1 : d)));
}

/** `count` shapes that broadcast together (to a random shape; [3,1] with [1,4] happens as well as [3,4] with [4]). */
export function broadcastShapesArb(count: number, maxRank = 3): fc.Arbitrary<number[][]> {
  return shapeArb(0, maxRank).chain((out) => fc.array(broadcastableTo(out), { minLength: count, maxLength: count }));
}

/** A non-empty random subset of the axes of a rank (sorted). */
export function axesArb(rank: number): fc.Arbitrary<number[]> {
  if (rank === 0) return fc.constant([]);
  return fc.subarray([...Array(rank).keys()], { minLength: 1 });
}

/** A random permutation of 0..rank-1. */
export function permutationArb(rank: number): fc.Arbitrary<number[]> {
  return fc.shuffledSubarray([...Array(rank).keys()], { minLength: rank, maxLength: rank });
}

/** Doubles in [lo, hi], no NaN; magnitudes below 1e-20 become 0 so f32 never meets subnormals a GPU would flush. */
export function floats(lo: number, hi: number): fc.Arbitrary<number> {
  return fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }).map((v) => (Math.abs(v) < 1e-20 ? 0 : v));
}

/** Doubles with |v| in [lo, hi] and either sign (denominators, divisors). */
export function awayFromZero(lo: number, hi: number): fc.Arbitrary<number> {
  return fc.tuple(floats(lo, hi), fc.boolean()).map(([v, neg]) => (neg ? -v : v));
}

/** Small integers as doubles: comparisons get ties. */
export function smallInts(lo = -2, hi = 2): fc.Arbitrary<number> {
  return fc.integer({ min: lo, max: hi });
}

/** 0 or 1. */
export const bits: fc.Arbitrary<number> = fc.integer({ min: 0, max: 1 });

/** An array of values filling a shape. */
export function valuesArb(shape: readonly number[], values: fc.Arbitrary<number>): fc.Arbitrary<number[]> {
  const n = sizeOf(shape);
  return fc.array(values, { minLength: n, maxLength: n });
}
