/**
 * When a threaded run's calling thread enlists its workers (threads/enlist-policy.ts): at its pace
 * so far, with more than half a second of work left, and on a loaded machine (less than half a core
 * for the calling thread) only when the run is long.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ENLIST_AFTER_SECONDS, LOADED_ENLIST_AFTER_CPU_SECONDS, MIN_CORE_SHARE, shouldEnlist } from "../src/sampler/threads/enlist-policy.ts";

// 100 chain iterations done in `ms` of the thread's wall time, `share` of it on a core; `left` iterations to go.
const work = (ms: number, share: number) => ({ ms, cpuMs: ms * share, chainIterations: 100 });

describe("the enlist policy", () => {
  it("enlists when more than half a second is left and the thread got half a core or more", () => {
    // 100 iterations in 50 ms: 1,100 more is 0.55 s, 900 more 0.45 s.
    expect(shouldEnlist(work(50, 1), 1100)).toBe(true);
    expect(shouldEnlist(work(50, MIN_CORE_SHARE), 1100)).toBe(true);
    expect(shouldEnlist(work(50, 1), 900)).toBe(false);
    expect(ENLIST_AFTER_SECONDS).toBe(0.5);
  });

  it("on a loaded machine, a short run stays on one thread and a long run enlists", () => {
    // At 0.3 of a core: 0.55 s of wall left is 0.17 s of CPU.
    expect(shouldEnlist(work(50, 0.3), 1100)).toBe(false);
    // 100 iterations in 50 ms at 0.3 of a core is 15 ms of CPU: 30 s of CPU is 200,000 iterations.
    expect(shouldEnlist(work(50, 0.3), 201_000)).toBe(true);
    expect(shouldEnlist(work(50, 0.3), 199_000)).toBe(false);
    expect(LOADED_ENLIST_AFTER_CPU_SECONDS).toBe(30);
  });

  it("an explicit enlistAfterSeconds is the whole rule, whatever the share", () => {
    expect(shouldEnlist(work(50, 0.1), 1, 0)).toBe(true);
    expect(shouldEnlist(work(50, 0.1), 1100, 0.5)).toBe(true);
    expect(shouldEnlist(work(50, 1), 900, 0.5)).toBe(false);
  });

  it("never enlists before an iteration is done, and more work left never turns a yes into a no", () => {
    expect(shouldEnlist({ ms: 0, cpuMs: 0, chainIterations: 0 }, 8000)).toBe(false);
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e5, noNaN: true }), fc.double({ min: 0, max: 2, noNaN: true }), fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 0, max: 1e6 }), (ms, share, a, b) => {
        const w = work(ms, share);
        if (shouldEnlist(w, Math.min(a, b))) expect(shouldEnlist(w, Math.max(a, b))).toBe(true);
      }),
    );
  });
});
