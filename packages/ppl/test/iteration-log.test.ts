/**
 * A thread's log of its iterations (pace.ts IterationLog) keeps a bounded number of entries however
 * long the run; a short run keeps every iteration.
 */
import { describe, expect, it } from "vitest";
import { IterationLog } from "../src/sampler/pace.ts";

// A run whose step takes no time and whose gradients per iteration come from `gradients`.
function fakeRun(gradients: readonly number[]): { step(): void; evaluationsDone: number } {
  let i = 0;
  return {
    evaluationsDone: 0,
    step() {
      this.evaluationsDone += gradients[i++ % gradients.length]!;
    },
  };
}

describe("IterationLog", () => {
  it("keeps every iteration of a short run, as secondHalf of them all", () => {
    const log = new IterationLog();
    const run = fakeRun([3, 7, 1]);
    for (let t = 0; t < 1000; t++) log.step(run);
    expect(log.entries).toBe(1000);
    const half = log.secondHalf();
    expect(half.seconds).toBeGreaterThanOrEqual(0);
    expect(half.gradients).toBeGreaterThan(0);
    expect(half.gradients).toBeLessThanOrEqual(run.evaluationsDone);
  });

  it("keeps at most 4096 entries over a million iterations", () => {
    const log = new IterationLog();
    const run = fakeRun([1, 2, 3, 4]);
    for (let t = 0; t < 1_000_000; t++) {
      log.step(run);
      if (t % 99_991 === 0) expect(log.entries).toBeLessThanOrEqual(4096);
    }
    expect(log.entries).toBeLessThanOrEqual(4096);
    expect(log.entries).toBeGreaterThanOrEqual(2048);
    const half = log.secondHalf();
    expect(half.gradients).toBeGreaterThan(0);
    expect(half.gradients).toBeLessThanOrEqual(run.evaluationsDone);
  });
});
