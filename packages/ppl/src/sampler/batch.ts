/**
 * C chains advanced together: per-chain state machines that each need one
 * gradient at a time, served by ONE batched `logpGrad` call per round.
 *
 * Invariant: a chain's row of q always matches its rows of lp and grad once
 * the chain is idle, so a backend that ignores `active` and re-evaluates every
 * row leaves idle chains unchanged.
 */

import type { BatchedDensity } from "./density.ts";

/** A per-chain state machine that consumes one batched gradient at a time. */
export interface GradientStepper {
  /** Called after logpGrad filled this chain's lp and grad; returns true when it needs another gradient. */
  advance(): boolean;
}

/** Shared position/log-density/gradient buffers for C chains, row per chain. */
export class ChainBatch {
  readonly chains: number;
  readonly dim: number;
  readonly q: Float64Array;
  readonly lp: Float64Array;
  readonly grad: Float64Array;
  readonly active: Uint8Array;
  /** Gradient evaluations spent per chain. */
  readonly evaluations: Float64Array;
  /** Row views, made once. */
  readonly qRows: readonly Float64Array[];
  readonly gradRows: readonly Float64Array[];

  constructor(chains: number, dim: number) {
    this.chains = chains;
    this.dim = dim;
    this.q = new Float64Array(chains * dim);
    this.lp = new Float64Array(chains);
    this.grad = new Float64Array(chains * dim);
    this.active = new Uint8Array(chains);
    this.evaluations = new Float64Array(chains);
    const qRows: Float64Array[] = [];
    const gradRows: Float64Array[] = [];
    for (let c = 0; c < chains; c++) {
      qRows.push(this.q.subarray(c * dim, (c + 1) * dim));
      gradRows.push(this.grad.subarray(c * dim, (c + 1) * dim));
    }
    this.qRows = qRows;
    this.gradRows = gradRows;
  }

  /** Whether any chain is waiting for a gradient. */
  anyActive(): boolean {
    for (let c = 0; c < this.chains; c++) if (this.active[c] !== 0) return true;
    return false;
  }
}

/**
 * Serves gradients until no chain is active: each round is one batched
 * logpGrad over the active rows, then every active chain advances.
 * The caller marks `active` when it starts the machines.
 */
export function driveBatch(density: BatchedDensity, batch: ChainBatch, steppers: readonly GradientStepper[]): void {
  const { active, evaluations } = batch;
  while (batch.anyActive()) {
    density.logpGrad(batch.q, batch.lp, batch.grad, active);
    for (let c = 0; c < batch.chains; c++) {
      if (active[c] === 0) continue;
      evaluations[c] = evaluations[c]! + 1;
      active[c] = steppers[c]!.advance() ? 1 : 0;
    }
  }
}
