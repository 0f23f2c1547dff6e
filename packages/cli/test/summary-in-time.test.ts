// The summary after a run is made in steps that let a stop signal's handler run: within one
// parameter of millions of draws (its chains read, its sort, each split chain of each pass), not
// only between parameters, so that a stop during the summary of a long run is answered at once.
import { describe, expect, it } from "vitest";
import { chainsFromColumns } from "@ppl/ppl";
import { summarizeSteps } from "@ppl/ppl/diagnostics";
import { summarizeDraws } from "../src/read-runs.ts";
import { summarizeInTime } from "../src/summary-in-time.ts";

// An AR(1) series per chain, from a fixed linear congruential stream.
function chains(count: number, n: number): Float64Array[][] {
  let s = 7;
  const uniform = (): number => ((s = (s * 1103515245 + 12345) % 2147483648) + 0.5) / 2147483648;
  return Array.from({ length: count }, () => {
    const x = new Float64Array(n);
    let prev = 0;
    for (let i = 0; i < n; i++) x[i] = prev = 0.5 * prev + uniform() - 0.5;
    return [x];
  });
}

describe("summarizeInTime", () => {
  it("gives up inside one parameter of 4 × 250,000 draws once the deadline has passed, having yielded at every step", async () => {
    const draws = chainsFromColumns(["mu"], chains(4, 250_000));
    let steps = 0;
    const names = summarizeSteps(["mu"], (p) => draws.parameters[p]!);
    let expired = false;
    // The deadline passes as soon as the event loop gets a turn: that is, inside the parameter.
    setTimeout(() => (expired = true), 0);
    const result = await summarizeInTime(draws, 10, () => {
      steps++;
      return expired;
    });
    expect(result).toBeNull();
    // The parameter's own work comes in many steps: 4 chains read, the moments, the sort, then the first pass's 8 split chains.
    let inner = 0;
    for (let r = names.next(); !r.done && r.value === null && inner <= 13; r = names.next()) inner++;
    expect(inner).toBeGreaterThan(13);
    expect(steps).toBeGreaterThan(1);
  });

  it("with time enough gives the summary that summarizeDraws gives, bit for bit", async () => {
    const draws = chainsFromColumns(["mu", "sigma"], chains(3, 20_001).map(([x]) => [x!, x!.map((v) => Math.exp(v))]));
    const whole = summarizeDraws(draws, 10);
    const steps = await summarizeInTime(draws, 10, () => false);
    expect(steps).not.toBeNull();
    steps!.parameters.forEach((p, i) => {
      for (const [k, v] of Object.entries(p)) expect(Object.is(v, (whole.parameters[i] as unknown as Record<string, unknown>)[k]), `${p.name}.${k}`).toBe(true);
    });
  });
});
