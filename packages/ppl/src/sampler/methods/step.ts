/**
 * One chain, one transition at a time, BlackJAX's way: `oneChain` makes a chain's context over
 * its own batch row, `stepOnce` runs a whole transition of a method against a density (one
 * density call per gradient the method asks for) and returns its statistics; the new point is the
 * chain's row (chain.q, its lp and gradient). What a driver does for many chains at once, without
 * batching; for tests and for methods explored by hand.
 */
import { ChainBatch } from "../batch.ts";
import type { BatchedDensity } from "../density.ts";
import { Metric, type MetricKind } from "../metric.ts";
import { chainContext, type ChainContext, type TransitionStats } from "../transition.ts";
import { seedKey } from "../../random/streams.ts";
import type { SamplingMethod } from "./method.ts";

/** A chain of dimension `dim` at point q (lp and gradient evaluated on `density`), with stream (seed, id) and a unit metric. */
export function oneChain(density: BatchedDensity, q: Float64Array, seed: number, id = 0, metric: MetricKind = "diag"): ChainContext {
  const batch = new ChainBatch(1, density.dim);
  const chain = chainContext(batch, { row: 0, id }, seedKey(seed), new Metric(metric, density.dim));
  chain.q.set(q);
  density.logpGrad(batch.q, batch.lp, batch.grad);
  return chain;
}

/** Runs one transition of `method` from the chain's point at `iteration`; returns its statistics (the state holds the rest). */
export function stepOnce<S>(method: SamplingMethod<S>, state: S, chain: ChainContext, density: BatchedDensity, iteration: number, stepSize: number): TransitionStats {
  const { batch } = chain;
  const lp = batch.lp.subarray(chain.row, chain.row + 1);
  let more = method.begin(state, iteration, stepSize);
  while (more) {
    density.logpGrad(chain.q, lp, chain.grad);
    batch.evaluations[chain.row] = batch.evaluations[chain.row]! + 1;
    more = method.advance(state);
  }
  return method.info(state);
}
