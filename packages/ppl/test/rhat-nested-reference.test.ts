/**
 * Nested R-hat, and the ESS and MCSE of many short chains, against the reference values that
 * fixtures/rhat-nested/make.py computes with numpy from the published formulas (nested R-hat:
 * Margossian et al. 2023; ESS: posterior's algorithm), on draws both sides regenerate from the
 * same AR(1) recipe: agreement to 1e-8 relative. The last two cases (1024 chains of 10 and of
 * 100 draws) are the many-short-chains shape `--algorithm chees` produces.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contiguousSuperchains, rhatNested } from "../src/diagnostics/rhat-nested.ts";
import { summarizeParameter } from "../src/diagnostics/summary.ts";

interface Case {
  name: string;
  superchains: number;
  chains_per_superchain: number;
  draws: number;
  rho: number;
  seed: number;
  starts: number[];
  expected: { rhat_nested: number; ess_basic: number | null; ess_bulk: number | null; mcse_mean: number | null; mean: number };
}

const CASES = JSON.parse(readFileSync(new URL("./fixtures/rhat-nested/cases.json", import.meta.url), "utf8")) as Case[];

// make.py's recipe, operation for operation: an AR(1) driven by a 32-bit LCG.
function regenerate(c: Case): Float64Array[] {
  let state = c.seed;
  const root12 = Math.sqrt(12);
  const scale = Math.sqrt(1 - c.rho * c.rho);
  return Array.from({ length: c.superchains * c.chains_per_superchain }, (_, chain) => {
    const start = c.starts[Math.floor(chain / c.chains_per_superchain)]!;
    const out = new Float64Array(c.draws);
    let x = 0;
    for (let i = 0; i < c.draws; i++) {
      state = (1664525 * state + 1013904223) % 4294967296;
      const e = (state / 4294967296 - 0.5) * root12;
      x = i === 0 ? start + e : c.rho * x + scale * e;
      out[i] = x;
    }
    return out;
  });
}

function close(actual: number, expected: number | null): void {
  if (expected === null) {
    expect(actual).toBeNaN();
    return;
  }
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(expected)));
}

describe("nested R-hat and many-chain ESS against the numpy reference", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const draws = regenerate(c);
    close(rhatNested(draws, contiguousSuperchains(draws.length, c.superchains)), c.expected.rhat_nested);
    const s = summarizeParameter("x", draws);
    close(s.mean, c.expected.mean);
    close(s.ess_basic, c.expected.ess_basic);
    close(s.ess_bulk, c.expected.ess_bulk);
    close(s.mcse_mean, c.expected.mcse_mean);
  });
});
