import { seedKey } from "../random/streams.ts";
import { initialCandidate, MAX_INIT_ATTEMPTS } from "./initialize.ts";

/**
 * The last point a chain tried before its initialization failed (an InitializationError for chain
 * `chainId`): the given initial point when there was one, else the last of the MAX_INIT_ATTEMPTS
 * uniform draws, made again from the same stream. What a message explaining the failure evaluates.
 */
export function lastInitialPoint(dim: number, chainId: number, opts: { readonly seed: number; readonly initRadius: number; readonly given?: ArrayLike<number> }): Float64Array {
  if (opts.given !== undefined) return Float64Array.from(opts.given);
  const q = new Float64Array(dim);
  initialCandidate(seedKey(opts.seed), chainId, MAX_INIT_ATTEMPTS - 1, opts.initRadius, q);
  return q;
}
