/** The i32 ops against their definitions: Stan's %/ and % (truncation), bit operations, shifts mod 32. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import type { Node } from "../src/index.ts";

const ints = (v: number[]) => T.constant(v, [v.length], "i32");
const run = (n: Node) => Array.from(T.interpret([n], {})[0]!.data);

describe("integer ops", () => {
  it("quotient and remainder truncate toward zero, as Stan's %/ and %", () => {
    const a = ints([7, -7, 7, -7, 6, 0, 5]), b = ints([2, 2, -2, -2, 3, 4, 0]);
    expect(run(T.quotient(a, b))).toEqual([3, -3, -3, 3, 2, 0, 0]);
    expect(run(T.remainder(a, b))).toEqual([1, -1, 1, -1, 0, 0, 5]);
    // Python's %, for contrast, takes the divisor's sign.
    expect(run(T.mod(a, b)).slice(0, 4)).toEqual([1, 1, -1, -1]);
  });

  it("satisfy a = b·quotient + remainder with |remainder| < |b| over the i32 range", () => {
    const i32 = fc.integer({ min: -(2 ** 31) + 1, max: 2 ** 31 - 1 });
    fc.assert(
      fc.property(i32, i32.filter((b) => b !== 0), (a, b) => {
        const [q, r] = T.interpret([T.quotient(ints([a]), ints([b])), T.remainder(ints([a]), ints([b]))], {}).map((v) => v.data[0]!);
        expect(BigInt(b) * BigInt(q!) + BigInt(r!)).toBe(BigInt(a));
        expect(Math.abs(r!)).toBeLessThan(Math.abs(b));
        expect(r === 0 || Math.sign(r!) === Math.sign(a)).toBe(true);
      }),
    );
  });

  it("bit ops and shifts on i32, counts mod 32, right shifts arithmetic", () => {
    const a = ints([12, -1, 5]), b = ints([10, 3, 33]);
    expect(run(T.bitAnd(a, b))).toEqual([8, 3, 1]);
    expect(run(T.bitOr(a, b))).toEqual([14, -1, 37]);
    expect(run(T.bitXor(a, b))).toEqual([6, -4, 36]);
    expect(run(T.bitNot(a))).toEqual([-13, 0, -6]);
    expect(run(T.shiftLeft(a, b))).toEqual([12 << 10, -8, 10]);
    expect(run(T.shiftRight(ints([-16, 16, 1]), ints([2, 2, 32])))).toEqual([-4, 4, 1]);
  });

  it("refuse float operands", () => {
    expect(() => T.quotient(T.constant([1.5], [1]), 2)).toThrow(/expects i32/);
    expect(() => T.bitAnd(T.param("x", [2]), ints([1, 2]))).toThrow(/expects i32/);
    expect(T.bitOr(T.constant(1, [2], "bool"), ints([2, 4])).dtype).toBe("i32");
  });
});
