import type { Shape } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";

/** The length K of a vector-shaped parameter; other shapes are a ModelError naming the constraint. */
export function vectorLength(constraint: string, shape: Shape, min: number): number {
  if (shape.length !== 1 || shape[0]! < min) {
    throw new ModelError(`${constraint}: needs a vector parameter of length ≥ ${min}, got shape [${shape.join(",")}]; pass { shape: [K] }`);
  }
  return shape[0]!;
}
