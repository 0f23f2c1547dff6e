// The summary's interruptible sort gives Float64Array.prototype.sort's order value for value
// (Object.is: -0 before +0, NaN last), whatever the values, the length and the bucket size.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sortInSteps } from "../src/diagnostics/sort-in-steps.ts";

function drain(steps: Generator<void, Float64Array, void>): { sorted: Float64Array; steps: number } {
  let n = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { sorted: r.value, steps: n };
    n++;
  }
}

const value = fc.oneof(
  { weight: 6, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.constantFrom(0, -0, 1, -1, 1.0000000000000002, 2, Infinity, -Infinity, NaN, 5e-324, -5e-324, Number.MAX_VALUE) },
  { weight: 2, arbitrary: fc.integer({ min: -3, max: 3 }).map((k) => 1 + k * 2 ** -52) },
);

describe("sortInSteps", () => {
  it("sorts as the built-in sort does, for any values and any bucket left to it", () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (values, small) => {
        const expected = Float64Array.from(values).sort();
        const { sorted } = drain(sortInSteps(Float64Array.from(values), small));
        expect(sorted.length).toBe(expected.length);
        for (let i = 0; i < expected.length; i++) expect(Object.is(sorted[i], expected[i]), `at ${i}: ${sorted[i]} vs ${expected[i]}`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("sorts 1,000,000 draws of one narrow range (every digit needed) in more than one step, as the built-in sort", () => {
    const n = 1_000_000;
    const a = new Float64Array(n);
    let s = 12345;
    for (let i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) % 2147483648;
      a[i] = 1 + (s / 2147483648) * 1e-9 * (i % 3 === 0 ? -1 : 1);
    }
    const expected = Float64Array.from(a).sort();
    const { sorted, steps } = drain(sortInSteps(a));
    expect(steps).toBeGreaterThan(5);
    expect(Buffer.from(sorted.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
  });
});
