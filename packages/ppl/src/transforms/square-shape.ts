import type { Shape } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";

/** The size K of a K×K matrix parameter; other shapes are a ModelError naming the constraint. */
export function squareSize(constraint: string, shape: Shape, min: number): number {
  if (shape.length !== 2 || shape[0] !== shape[1] || shape[0]! < min) {
    throw new ModelError(`${constraint}: needs a square matrix parameter of size ≥ ${min}, got shape [${shape.join(",")}]; pass { shape: [K, K] }`);
  }
  return shape[0]!;
}
