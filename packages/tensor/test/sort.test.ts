/** argsort and sort against JavaScript's sort (stable, NaN last), on the reference and compiled CPU backends. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";

const backend = TI.compiledBackend();
const ref = (v: number[]) => [...v.keys()].sort((i, j) => {
  const [a, b] = [v[i]!, v[j]!];
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? i - j : 1) : -1;
  return a < b ? -1 : a > b ? 1 : i - j;
});

describe("argsort and sort", () => {
  it("sort stably, NaN last, descending by −x", () => {
    const x = T.constant([3, NaN, -1, 3, -Infinity, 0], [6]);
    expect(Array.from(T.interpret([T.argsort(x)], {})[0]!.data)).toEqual([4, 2, 5, 0, 3, 1]);
    expect(Array.from(T.interpret([T.sort(x)], {})[0]!.data)).toEqual([-Infinity, -1, 0, 3, 3, NaN]);
    expect(Array.from(T.interpret([T.argsort(x, -1, true)], {})[0]!.data)).toEqual([0, 3, 5, 2, 4, 1]);
    expect(T.argsort(x).dtype).toBe("i32");
  });

  it("agree with JavaScript's sort along either axis, on both CPU backends", async () => {
    const v = fc.oneof({ weight: 5, arbitrary: fc.integer({ min: -4, max: 4 }) }, fc.constant(Number.NaN));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 40 }), fc.infiniteStream(v), async (rows, n, vals) => {
        const flat = [...vals.take(rows * n)];
        const x = T.data("x", [rows, n]);
        const exe = await backend.compile([T.argsort(x, 1), T.argsort(x, 0)]);
        const [byRow, byCol] = await exe.run({ x: flat });
        const [refRow, refCol] = T.interpret([T.argsort(x, 1), T.argsort(x, 0)], { x: flat });
        for (let r = 0; r < rows; r++) {
          const want = ref(flat.slice(r * n, (r + 1) * n));
          expect(Array.from(byRow!.data.slice(r * n, (r + 1) * n))).toEqual(want);
          expect(Array.from(refRow!.data.slice(r * n, (r + 1) * n))).toEqual(want);
        }
        for (let c = 0; c < n; c++) {
          const want = ref(Array.from({ length: rows }, (_, r) => flat[r * n + c]!));
          expect(Array.from({ length: rows }, (_, r) => byCol!.data[r * n + c])).toEqual(want);
          expect(Array.from({ length: rows }, (_, r) => refCol!.data[r * n + c])).toEqual(want);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("takeAlongAxis picks entries by index along an axis", () => {
    const x = T.constant([10, 11, 12, 20, 21, 22], [2, 3]);
    const idx = T.constant([2, 0, 0, 1, 1, 2], [2, 3], "i32");
    expect(Array.from(T.interpret([T.takeAlongAxis(x, idx, 1)], {})[0]!.data)).toEqual([12, 10, 10, 21, 21, 22]);
    const idx0 = T.constant([1, 0, 1, 0, 0, 0], [2, 3], "i32");
    expect(Array.from(T.interpret([T.takeAlongAxis(x, idx0, 0)], {})[0]!.data)).toEqual([20, 11, 22, 10, 11, 12]);
  });
});
