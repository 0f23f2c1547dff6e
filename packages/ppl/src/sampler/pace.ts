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

/** A thread's iterations of a run, each one's seconds and gradients, for its pace (secondHalf). */
export class IterationLog {
  private readonly times: number[] = [];
  private readonly gradients: number[] = [];

  /** Steps `run` once and records the iteration. */
  step(run: { step(): void; readonly evaluationsDone: number }): void {
    const t0 = performance.now();
    const e0 = run.evaluationsDone;
    run.step();
    this.times.push((performance.now() - t0) / 1000);
    this.gradients.push(run.evaluationsDone - e0);
  }

  /** Forgets the iterations so far (the thread's chains changed). */
  clear(): void {
    this.times.length = 0;
    this.gradients.length = 0;
  }

  /** Seconds and gradients of the iterations in the second half of the time. */
  secondHalf(): { seconds: number; gradients: number } {
    return secondHalf(this.times, this.gradients);
  }
}

/**
 * A run's progress as (seconds, iterations done) points, for how long its rest will take: the
 * iterations of the later half of its time (the first ones, before the engine optimises the code,
 * run several times slower and would make a run of a tenth of a second look like seconds).
 */
export class ProgressPace {
  private readonly times: number[] = [];
  private readonly iterations: number[] = [];

  /** Records that `iteration` iterations were done at `seconds` (a clock of the caller's; points closer than 5 ms are skipped). */
  add(seconds: number, iteration: number): void {
    const last = this.times.length - 1;
    if (last >= 0 && seconds - this.times[last]! < 0.005) return;
    this.times.push(seconds);
    this.iterations.push(iteration);
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
    return done > 0 ? (seconds - this.times[lo]!) / done : NaN;
  }
}
