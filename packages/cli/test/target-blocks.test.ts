// The target-ESS benchmark's stopping rule (bench/target-blocks.ts, beside `ppl sample
// --target-ess`'s): checks after every complete block of fixed size over all draws so far, stops at
// the first that meets the target, and gives the same checks whatever order the chains' draws come in.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { essBulk } from "@ppl/ppl";
import { meetsTarget, TargetBlocks } from "../../../bench/target-blocks.ts";

// Independent N(0, 1) draws from a 32-bit LCG and Box–Muller: chain c's stream of `n` draws of `dim` coordinates.
function normals(seed: number, n: number, dim: number): Float64Array[] {
  let s = seed >>> 0;
  const u = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  return Array.from({ length: n }, () => Float64Array.from({ length: dim }, () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u())));
}

const NAMES = ["a", "b[1]", "b[2]"];

// Feeds the chains' draws in the order `picks` gives (a chain past its stream is skipped), then every chain to the end.
function run(blocks: TargetBlocks, streams: Float64Array[][], picks: readonly number[]): void {
  const at = new Int32Array(streams.length);
  const feed = (c: number) => {
    if (blocks.done || at[c]! >= streams[c]!.length) return;
    blocks.add(c, streams[c]![at[c]!]!);
    at[c]!++;
  };
  for (const c of picks) feed(c % streams.length);
  for (let i = 0; i < streams[0]!.length; i++) for (let c = 0; c < streams.length; c++) feed(c);
}

describe("target blocks", () => {
  const streams = Array.from({ length: 4 }, (_, c) => normals(100 + c, 400, NAMES.length));

  it("checks after every block of 50 draws a chain and stops at the first that meets ESS 500", () => {
    const blocks = new TargetBlocks(500, 50, NAMES, 4);
    run(blocks, streams, []);
    expect(blocks.met).not.toBeNull();
    expect(blocks.checks.length).toBeGreaterThan(1);
    const draws = blocks.checks.map((c) => c.draws);
    expect(draws).toEqual(draws.map((_, i) => 50 * (i + 1)));
    expect(blocks.met).toBe(blocks.checks.at(-1));
    // A check that misses stops at the first coordinate below the target; the one that meets it computes all.
    expect(blocks.checks.slice(0, -1).every((c) => c.minEss < 500 && !c.reached && c.coordinates >= 1)).toBe(true);
    expect(blocks.met!.coordinates).toBe(NAMES.length);
    expect(blocks.met!.minEss).toBeGreaterThanOrEqual(500);
    // The minimum is over every coordinate of the draws so far (independent draws: ESS near 4·n).
    const n = blocks.met!.draws;
    const ess = NAMES.map((_, j) => essBulk(streams.map((s) => Float64Array.from(s.slice(0, n), (d) => d[j]!))));
    expect(blocks.met!.minEss).toBe(Math.min(...ess));
    expect(blocks.met!.minEssName).toBe(NAMES[ess.indexOf(Math.min(...ess))]);
    expect(Number.isNaN(blocks.met!.maxRhat)).toBe(true);
    // Once met, later draws are not kept and nothing more is checked.
    expect(blocks.add(0, streams[0]![0]!)).toBe(false);
    expect(blocks.checks.at(-1)).toBe(blocks.met);
  });

  it("gives the same checks whatever order the chains' draws arrive in", () => {
    const lockstep = new TargetBlocks(500, 50, NAMES, 4);
    run(lockstep, streams, []);
    const summary = (b: TargetBlocks) => b.checks.map((c) => [c.draws, c.minEss, c.minEssName, c.reached]);
    fc.assert(
      fc.property(fc.array(fc.nat(3), { maxLength: 600 }), (picks) => {
        const shuffled = new TargetBlocks(500, 50, NAMES, 4);
        run(shuffled, streams, picks);
        expect(summary(shuffled)).toEqual(summary(lockstep));
      }),
      { numRuns: 20, seed: 7 },
    );
  });

  it("with superchains, also asks nested R-hat below 1.01", () => {
    expect(meetsTarget(2000, 1.02, 1000, true)).toBe(false);
    expect(meetsTarget(2000, 1.02, 1000, false)).toBe(true);
    expect(meetsTarget(2000, 1.005, 1000, true)).toBe(true);
    expect(meetsTarget(NaN, 1, 10, false)).toBe(false);
    expect(meetsTarget(2000, NaN, 1000, true)).toBe(false);
    // 64 chains in 8 superchains of independent draws: met, with nested R-hat reported.
    const many = Array.from({ length: 64 }, (_, c) => normals(7 + c, 40, NAMES.length));
    const blocks = new TargetBlocks(1000, 10, NAMES, 64, 8);
    run(blocks, many, []);
    expect(blocks.met?.reached).toBe(true);
    expect(blocks.met!.maxRhat).toBeLessThan(1.01);
    expect(NAMES).toContain(blocks.met!.maxRhatName);
    // A superchain of chains shifted by 3 posterior sds never mixes: nested R-hat stays high and the target is not met.
    const stuck = many.map((s, c) => (c < 8 ? s.map((d) => d.map((x) => x + 3)) : s));
    const refused = new TargetBlocks(100, 10, NAMES, 64, 8);
    run(refused, stuck, []);
    expect(refused.met).toBeNull();
    expect(refused.checks.at(-1)!.maxRhat).toBeGreaterThan(1.01);
    // It is R-hat that stops it: the ESS alone would have met this target.
    const n = refused.checks.at(-1)!.draws;
    for (let j = 0; j < NAMES.length; j++) expect(essBulk(stuck.map((s) => Float64Array.from(s.slice(0, n), (d) => d[j]!)))).toBeGreaterThanOrEqual(100);
  });

  it("checks first at the first block holding firstCheck draws a chain", () => {
    const blocks = new TargetBlocks(1e9, 10, NAMES, 4, undefined, 25);
    run(blocks, streams.map((s) => s.slice(0, 60)), []);
    expect(blocks.checks.map((c) => c.draws)).toEqual([30, 40, 50, 60]);
  });

  it("decides as a check of every coordinate would, whichever coordinate missed last", () => {
    // Coordinate j of chain c scaled into an AR(1) of its own: each block's full-minimum decision, recomputed here.
    const ar = streams.map((s) => {
      const out = s.map((d) => Float64Array.from(d));
      for (let i = 1; i < out.length; i++) for (let j = 0; j < NAMES.length; j++) out[i]![j] = 0.3 * (j + 1) * out[i - 1]![j]! + out[i]![j]!;
      return out;
    });
    const blocks = new TargetBlocks(60, 20, NAMES, 4);
    run(blocks, ar, []);
    for (const c of blocks.checks) {
      const all = NAMES.map((_, j) => essBulk(ar.map((s) => Float64Array.from(s.slice(0, c.draws), (d) => d[j]!))));
      expect(c.reached).toBe(Math.min(...all) >= 60);
    }
    expect(blocks.checks.length).toBeGreaterThan(2);
    expect(blocks.met).not.toBeNull();
  });

  it("refuses superchains that do not divide the chains", () => {
    expect(() => new TargetBlocks(100, 10, NAMES, 64, 7)).toThrow(/divisor of 64/);
  });
});
