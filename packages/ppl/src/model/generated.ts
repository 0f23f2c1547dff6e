/**
 * Generated quantities (Stan's generated quantities block): values computed on the host once per
 * kept draw, from the draw's constrained values, with random numbers from a Philox stream of their
 * own, so that they are reproducible from the seed whatever backend made the draws.
 */
import type { Operand, Shape, TensorValue } from "@ppl/tensor";
import type { Distribution, NodeValues } from "../distributions/distribution.ts";
import type { Rng } from "../random/rng.ts";

/**
 * One kept draw as a generated quantity sees it: the values of the model's nodes at the draw, and
 * draws of distributions from the quantity's own random stream. It is also a NodeValues, so
 * `dist.sample(rng, shape, draw)` evaluates a distribution's node parameters at the draw.
 */
export interface GeneratedDraw extends NodeValues {
  /** 0-based chain of the draw. */
  readonly chain: number;
  /** 0-based index of the draw among its chain's kept draws. */
  readonly draw: number;
  /** The value at this draw of a node of the model: a parameter, deterministic, data field or any expression of them (data row-major). */
  value(x: Operand): TensorValue;
  /** The value of a one-entry node at this draw (a scalar parameter, say). */
  number(x: Operand): number;
  /** A parameter, deterministic or earlier generated quantity of this draw, by name (data row-major). */
  get(name: string): TensorValue;
  /** Draws of `dist`, its parameters evaluated at this draw, from this quantity's stream: `dist.sample(rng, shape, draw)`. */
  sample(dist: Distribution, shape?: Shape): TensorValue;
}

/** Numbers nested in arrays, row-major (a matrix as an array of rows). */
export type NestedNumbers = readonly (number | NestedNumbers)[];

/** What a generated quantity's function returns: a number, a tensor value, a flat row-major array, or nested arrays. */
export type GeneratedValue = number | TensorValue | ArrayLike<number> | NestedNumbers;

/** A generated quantity computed by a function of the draw and the quantity's random stream. */
export type GeneratedFunction = (draw: GeneratedDraw, rng: Rng) => GeneratedValue;

/** Options of a generated quantity: its shape (default: a function's value is a scalar, a distribution's draw has the distribution's shape). */
export interface GeneratedOptions {
  shape?: Shape;
}
