import { afterEach, describe, expect, it, vi } from "vitest";
import { newCounters, noteWait } from "../src/engine.ts";

describe("engine counters", () => {
  afterEach(() => vi.restoreAllMocks());

  it("sum the waits and keep the longest one with the steps it ran", () => {
    const now = vi.spyOn(performance, "now");
    const c = newCounters();
    expect(c).toEqual({ submits: 0, steps: 0, sequences: 0, recordSeconds: 0, waitSeconds: 0, longestWaitSeconds: 0, longestWaitSteps: 0, blocksAhead: 0, neededSteps: 0 });
    now.mockReturnValue(1030);
    noteWait(c, 1000, 64); // 30 ms
    now.mockReturnValue(2080);
    noteWait(c, 2000, 128); // 80 ms
    now.mockReturnValue(3010);
    noteWait(c, 3000, 0); // 10 ms, a batched logpGrad
    expect(c.waitSeconds).toBeCloseTo(0.12, 12);
    expect(c.longestWaitSeconds).toBeCloseTo(0.08, 12);
    expect(c.longestWaitSteps).toBe(128);
  });
});
