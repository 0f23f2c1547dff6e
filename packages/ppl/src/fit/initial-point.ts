/**
 * CmdStan's random initial point for an optimizer or an approximation: uniform in (−r, r) on the
 * unconstrained scale, from the seed's Philox streams 0, 1, … (one a try), up to 100 tries for a
 * point where the density and its gradient are finite.
 */
import type { Objective } from "../optimize/objective.ts";
import { philoxRng } from "../random/rng.ts";

/** The first of up to 100 random points uniform in (−radius, radius) where the objective and its gradient are finite; null when none is. */
export function randomInitialPoint(objective: Objective, radius: number, seed: number): Float64Array | null {
  const grad = new Float64Array(objective.dim);
  for (let attempt = 0; attempt < 100; attempt++) {
    const rng = philoxRng(seed, attempt);
    const q = Float64Array.from({ length: objective.dim }, () => radius * (2 * rng.uniform() - 1));
    if (Number.isFinite(objective.evaluate(q, grad)) && grad.every(Number.isFinite)) return q;
  }
  return null;
}
