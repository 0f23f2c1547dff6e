/**
 * Finding a starting point per chain: uniform draws in (−R, R) on the
 * unconstrained scale (Init stream, sub = attempt number, one uniform per
 * coordinate) until the log density and its gradient are finite, at most 100
 * attempts — or the user's point, which must be finite. A chain re-initialised
 * during warmup (a stuck chain, warmup/stuck-chains.ts) searches the same way
 * from the stream of the iteration it restarts at; the first search's is 0.
 */

import type { ChainBatch, GradientStepper } from "./batch.ts";
import { InitializationError } from "./errors.ts";
import type { ChainSlot } from "./transition.ts";
import { Purpose, streamUniforms, type SeedKey } from "../random/streams.ts";

/** Attempts per chain before giving up, as Stan. */
export const MAX_INIT_ATTEMPTS = 100;

/** One chain's search for a finite starting point. */
export class InitialPointSearch implements GradientStepper {
  private readonly batch: ChainBatch;
  private readonly row: number;
  private readonly id: number;
  private readonly key: SeedKey;
  private readonly radius: number;
  private readonly given: Float64Array | null;
  private readonly q: Float64Array;
  private readonly grad: Float64Array;
  private readonly iteration: number;
  private attempt = 0;
  private sawFiniteDensity = false;

  /** `iteration`: the Init stream's iteration, 0 for a run's first points, the restart's iteration for a re-initialised chain. */
  constructor(batch: ChainBatch, slot: ChainSlot, key: SeedKey, radius: number, given: Float64Array | null, iteration = 0) {
    this.iteration = iteration;
    this.batch = batch;
    this.row = slot.row;
    this.id = slot.id;
    this.key = key;
    this.radius = radius;
    this.given = given;
    this.q = batch.qRows[slot.row]!;
    this.grad = batch.gradRows[slot.row]!;
  }

  /** Writes the first candidate into the chain's row. */
  begin(): boolean {
    this.attempt = 0;
    this.propose();
    return true;
  }

  /** Accepts a finite candidate or proposes the next one. */
  advance(): boolean {
    const lp = this.batch.lp[this.row]!;
    const lpFinite = Number.isFinite(lp);
    let gradFinite = true;
    for (let i = 0; i < this.grad.length; i++) if (!Number.isFinite(this.grad[i]!)) gradFinite = false;
    if (lpFinite && gradFinite) return false;
    this.sawFiniteDensity ||= lpFinite;
    const what = this.sawFiniteDensity ? "the gradient of the log density was" : "log density was";
    if (this.given) {
      throw new InitializationError(this.id, `${what} not finite at the given initial point; check the initial values, the model's support and data`);
    }
    this.attempt++;
    if (this.attempt >= MAX_INIT_ATTEMPTS) {
      const r = this.radius;
      throw new InitializationError(
        this.id,
        `${what} not finite at ${MAX_INIT_ATTEMPTS} random initial points in (${-r}, ${r}); check the model's support and data`,
      );
    }
    this.propose();
    return true;
  }

  private propose(): void {
    if (this.given) {
      this.q.set(this.given);
      return;
    }
    initialCandidate(this.key, this.id, this.attempt, this.radius, this.q, this.iteration);
  }
}

/** Writes into `out` the point a chain tries at `attempt` (0-based): uniform in (−radius, radius) from the Init stream of `iteration` (0: the run's first points). */
export function initialCandidate(key: SeedKey, chainId: number, attempt: number, radius: number, out: Float64Array, iteration = 0): void {
  streamUniforms(key, chainId, iteration, Purpose.Init, attempt, out);
  for (let i = 0; i < out.length; i++) out[i] = radius * (2 * out[i]! - 1);
}
