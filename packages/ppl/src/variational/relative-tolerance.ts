/**
 * ADVI's convergence test as Stan's: every eval_elbo iterations the relative ELBO change
 * |(ELBO_prev − ELBO) / ELBO| (against 0 before the first evaluation, so the first change is 1) goes
 * into a circular buffer of max(⌊0.1 · iter / eval_elbo⌋, 2) entries; the run has converged when
 * the buffer's mean or its median falls below tol_rel_obj.
 */
export interface RelativeChangeState {
  readonly buffer: number[];
  readonly capacity: number;
  previous: number;
}

/** One check of the test. */
export interface RelativeChange {
  readonly elbo: number;
  readonly change: number;
  readonly mean: number;
  readonly median: number;
  readonly meanConverged: boolean;
  readonly medianConverged: boolean;
}

/** The test's empty state for a run of at most `maxIterations` checked every `evalElbo` iterations. */
export function relativeChangeState(maxIterations: number, evalElbo: number): RelativeChangeState {
  return { buffer: [], capacity: Math.trunc(Math.max((0.1 * maxIterations) / evalElbo, 2)), previous: 0 };
}

/** Adds an ELBO evaluation to the test and reports it. */
export function checkRelativeChange(state: RelativeChangeState, elbo: number, tolRelObj: number): RelativeChange {
  const change = Math.abs((state.previous - elbo) / elbo);
  state.previous = elbo;
  state.buffer.push(change);
  if (state.buffer.length > state.capacity) state.buffer.shift();
  const mean = state.buffer.reduce((a, b) => a + b, 0) / state.buffer.length;
  // Stan's circ_buff_median: the element at n/2 of the sorted buffer (the upper median when n is even).
  const sorted = [...state.buffer].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return { elbo, change, mean, median, meanConverged: mean < tolRelObj, medianConverged: median < tolRelObj };
}
