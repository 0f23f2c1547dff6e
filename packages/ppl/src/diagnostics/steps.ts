/**
 * Work written as a generator that yields between its steps (a long summary, so that a caller can
 * let a signal's handler run or stop), run to its end by a caller that does not stop.
 */

/**
 * Elements a loop of the summary handles between two yields: a stop must end the command within
 * two seconds, and at 4 × 5,000,000 draws a single pass over a split chain (2,500,000 draws) took
 * up to several seconds; this many cheap elements take well under a millisecond, and a yield
 * costs about a microsecond.
 */
export const STEP_WORK = 1 << 15;

/** Runs `steps` to the end and returns its result. */
export function finish<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** `body(from, to)` over 0..n-1 in ranges of `step`, yielding after each. */
export function* inRanges(n: number, body: (from: number, to: number) => void, step = STEP_WORK): Generator<void, void, void> {
  for (let from = 0; from < n; from += step) {
    body(from, Math.min(n, from + step));
    yield;
  }
}

/** A value already made, as the steps that make it (none). */
export function* made<T>(value: T): Generator<void, T, void> {
  return value;
}
