/**
 * What pace.ts keeps does not grow with the run: a thread's log of its iterations (IterationLog)
 * keeps a bounded number of entries, a short run every iteration; a run's progress points
 * (ProgressPace) asked every 5 ms for two hours stay a few thousand, its pace that of the later
 * half of the time.
 */
import { describe, expect, it } from "vitest";
import { IterationLog, ProgressPace } from "../src/sampler/pace.ts";

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

describe("ProgressPace", () => {
  it("keeps a few thousand points over two hours asked every 5 ms, its pace that of the later half", () => {
    const p = new ProgressPace();
    // 1 ms an iteration for the first 10 s, then 0.5 ms: at 7200 s the later half is all fast.
    const iterationAt = (t: number): number => (t <= 10 ? t / 1e-3 : 10 / 1e-3 + (t - 10) / 5e-4);
    let most = 0;
    let pace = NaN;
    for (let k = 0; k <= 1_440_000; k++) {
      const t = k * 0.005;
      p.add(t, iterationAt(t));
      pace = p.secondsPerIteration(t, iterationAt(t));
      most = Math.max(most, p.points);
    }
    expect(most).toBeLessThan(10_000);
    expect(pace).toBeCloseTo(5e-4, 9);
  });
});
