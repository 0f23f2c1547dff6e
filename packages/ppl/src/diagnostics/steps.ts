/**
 * Work written as a generator that yields between its steps (a long summary, so that a caller can
 * let a signal's handler run or stop), run to its end by a caller that does not stop.
 */

/** Runs `steps` to the end and returns its result. */
export function finish<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
