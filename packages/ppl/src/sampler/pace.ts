/**
 * A sampler's pace from its iterations' times: the last iterations that make up the second half
 * of the time, when the JavaScript engine has optimised the code (a fresh thread's first
 * iterations run several times slower).
 */

/** Seconds and gradients of the iterations in the second half of the time (times[i] seconds, gradients[i] gradients). */
export function secondHalf(times: readonly number[], gradients: readonly number[]): { seconds: number; gradients: number } {
  if (times.length === 0) return { seconds: 0, gradients: 0 };
  const total = times.reduce((a, b) => a + b, 0);
  let from = times.length - 1;
  let startOf = total - times[from]!;
  while (from > 0 && startOf - times[from - 1]! >= total / 2) startOf -= times[--from]!;
  return { seconds: total - startOf, gradients: gradients.slice(from).reduce((a, b) => a + b, 0) };
}

// Entries an IterationLog keeps at most: beyond them, pairs of neighbours are merged.
const LOG_ENTRIES = 4096;

/**
 * A thread's iterations of a run, each one's seconds and gradients, for its pace (secondHalf). A
 * run of millions of iterations must not keep one entry each (memory growing with the run): once
 * LOG_ENTRIES are kept, neighbours are merged in pairs and each entry then stands for twice as many
 * iterations, so the second half of the time is found to within one entry (under 1/2048 of the
 * iterations); a run of fewer iterations keeps every one.
 */
export class IterationLog {
  private times: number[] = [];
  private gradients: number[] = [];
  // Iterations per entry, and the iterations not yet making a whole entry.
  private span = 1;
  private partial = { seconds: 0, gradients: 0, iterations: 0 };

  /** Steps `run` once and records the iteration. */
  step(run: { step(): void; readonly evaluationsDone: number }): void {
    const t0 = performance.now();
    const e0 = run.evaluationsDone;
    run.step();
    const p = this.partial;
    p.seconds += (performance.now() - t0) / 1000;
    p.gradients += run.evaluationsDone - e0;
    if (++p.iterations < this.span) return;
    this.times.push(p.seconds);
    this.gradients.push(p.gradients);
    this.partial = { seconds: 0, gradients: 0, iterations: 0 };
    if (this.times.length >= LOG_ENTRIES) this.merge();
  }

  /** Forgets the iterations so far (the thread's chains changed). */
  clear(): void {
    this.times = [];
    this.gradients = [];
    this.span = 1;
    this.partial = { seconds: 0, gradients: 0, iterations: 0 };
  }

  /** Entries kept (each one iteration until there are LOG_ENTRIES, then each several). */
  get entries(): number {
    return this.times.length + (this.partial.iterations > 0 ? 1 : 0);
  }

  /** Seconds and gradients of the iterations in the second half of the time. */
  secondHalf(): { seconds: number; gradients: number } {
    const p = this.partial;
    if (p.iterations === 0) return secondHalf(this.times, this.gradients);
    return secondHalf([...this.times, p.seconds], [...this.gradients, p.gradients]);
  }

  private merge(): void {
    const pair = (a: readonly number[]): number[] => Array.from({ length: a.length >> 1 }, (_, i) => a[2 * i]! + a[2 * i + 1]!);
    this.times = pair(this.times);
    this.gradients = pair(this.gradients);
    this.span *= 2;
  }
}

// Points a ProgressPace keeps over the later half of the time, about.
const PACE_POINTS = 4096;

/**
 * A run's progress as (seconds, iterations done) points, for how long its rest will take: the
 * iterations of the later half of its time (the first ones, before the engine optimises the code,
 * run several times slower and would make a run of a tenth of a second look like seconds). A run
 * of hours asked every few milliseconds must not keep every point: points are kept at least 1/4096
 * of the time so far apart, and those before the half of the time at the last question (which no
 * later question needs, the clock going forward) are dropped, the first one kept.
 */
export class ProgressPace {
  private readonly times: number[] = [];
  private readonly iterations: number[] = [];

  /** Records that `iteration` iterations were done at `seconds` (a clock of the caller's; points closer than 5 ms, or 1/4096 of the time so far, are skipped). */
  add(seconds: number, iteration: number): void {
    const last = this.times.length - 1;
    if (last >= 0 && seconds - this.times[last]! < Math.max(0.005, (seconds - this.times[0]!) / PACE_POINTS)) return;
    this.times.push(seconds);
    this.iterations.push(iteration);
  }

  /** Points kept. */
  get points(): number {
    return this.times.length;
  }

  /** Seconds an iteration over the later half of the time up to `seconds`; NaN before 50 ms or without progress. */
  secondsPerIteration(seconds: number, iteration: number): number {
    if (this.times.length === 0 || seconds - this.times[0]! < 0.05) return NaN;
    const half = this.times[0]! + (seconds - this.times[0]!) / 2;
    // The first point at or after the half (binary search: the points are in time order).
    let lo = 0, hi = this.times.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! >= half) hi = mid;
      else lo = mid + 1;
    }
    const done = iteration - this.iterations[lo]!;
    const perIteration = done > 0 ? (seconds - this.times[lo]!) / done : NaN;
    if (lo > 1) {
      this.times.splice(1, lo - 1);
      this.iterations.splice(1, lo - 1);
    }
    return perIteration;
  }
}
