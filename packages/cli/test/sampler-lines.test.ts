// The summary's sampler lines: a value per chain for a few chains, counts over the chains for many
// (a list of 1024 chains' E-BFMI is not read).
import { describe, expect, it } from "vitest";
import { summarize } from "@ppl/ppl";
import { LISTED_CHAINS, samplerLines } from "../src/summary-text.ts";

function run(chains: number) {
  const col = (f: (c: number, i: number) => number) => Array.from({ length: chains }, (_, c) => Float64Array.from({ length: 10 }, (_, i) => f(c, i)));
  // Chains 3 and 5 diverge once and twice; chain 7's energy barely moves (low E-BFMI); chain 2 hits depth 10 once.
  const divergent = col((c, i) => ((c === 3 && i === 0) || (c === 5 && i < 2) ? 1 : 0));
  const treedepth = col((c, i) => (c === 2 && i === 4 ? 10 : 3));
  const energy = col((c, i) => (c === 7 ? i * 0.01 : (i % 2) * 3 + Math.sin(c + i)));
  return summarize({ x: col((c, i) => Math.sin(3 * c + i)) }, { sampler: { divergent, treedepth, energy }, maxTreeDepth: 10 });
}

describe("sampler lines", () => {
  it("lists the chains up to LISTED_CHAINS", () => {
    const lines = samplerLines(run(LISTED_CHAINS));
    expect(lines[1]).toBe(`  divergences: 3 of ${10 * LISTED_CHAINS} (per chain: ${Array.from({ length: LISTED_CHAINS }, (_, c) => (c === 3 ? 1 : c === 5 ? 2 : 0)).join(", ")})`);
    expect(lines[3]).toMatch(/^ {2}E-BFMI per chain: (\d\.\d{3}, ){15}\d\.\d{3}$/);
  });

  it("gives counts over the chains beyond it, naming the chain of the lowest E-BFMI", () => {
    const s = run(40);
    const lines = samplerLines(s);
    expect(lines[1]).toBe("  divergences: 3 of 400 (in 2 of 40 chains, at most 2 in one)");
    expect(lines[2]).toBe("  tree depth 10 reached: 1 of 400 (in 1 of 40 chains, at most 1 in one)");
    const below = s.sampler!.ebfmi.filter((e) => !(e >= 0.3)).length;
    expect(below).toBeGreaterThanOrEqual(1);
    expect(lines[3]).toBe(`  E-BFMI over 40 chains: lowest ${Math.min(...s.sampler!.ebfmi).toFixed(3)} (chain 8), ${below} below 0.3 (or NA)`);
  });
});
