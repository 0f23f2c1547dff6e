import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";
import { compiledBackend } from "../src/cpu/compiled/backend.ts";
import { broadcastShapesArb, floats, shapeArb, valuesArb } from "../src/testing/index.ts";

// Broadcasting by its definition: align shapes on the right, each output axis is the one
// non-1 size among the inputs (or 1), and an input of size 1 on an axis repeats its value.

function bruteShape(shapes: readonly (readonly number[])[]): number[] | undefined {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const sizes = shapes.map((s) => s[s.length - rank + i] ?? 1);
    const big = new Set(sizes.filter((d) => d !== 1));
    if (big.size > 1) return undefined;
    out.push(big.size ? [...big][0]! : 1);
  }
  return out;
}

// The value an input of `shape` contributes at output multi-index `idx`.
function at(values: ArrayLike<number>, shape: readonly number[], idx: readonly number[]): number {
  let flat = 0;
  const off = idx.length - shape.length;
  for (let a = 0; a < shape.length; a++) flat = flat * shape[a]! + (shape[a] === 1 ? 0 : idx[a + off]!);
  return values[flat]!;
}

function* indices(shape: readonly number[]): Generator<number[]> {
  const n = shape.reduce((a, b) => a * b, 1);
  const idx = shape.map(() => 0);
  for (let f = 0; f < n; f++) {
    yield [...idx];
    for (let a = shape.length - 1; a >= 0; a--) {
      if (++idx[a]! < shape[a]!) break;
      idx[a] = 0;
    }
  }
}

const anyShapes = fc.array(shapeArb(0, 3, 3), { minLength: 2, maxLength: 3 });
const cpu = compiledBackend();

describe("broadcasting matches its brute-force definition", () => {
  it("broadcastShapes: result, or a ShapeError exactly when no result exists", () => {
    fc.assert(
      fc.property(fc.oneof(anyShapes, broadcastShapesArb(3)), (shapes) => {
        const want = bruteShape(shapes);
        if (want === undefined) expect(() => TI.broadcastShapes("add", ...shapes)).toThrow(T.ShapeError);
        else expect(TI.broadcastShapes("add", ...shapes)).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it("binary ops, select and broadcast_to: element by element, on both CPU paths", () => {
    const arb = broadcastShapesArb(3).chain((shapes) => fc.tuple(fc.constant(shapes), ...shapes.map((s) => valuesArb(s, floats(-4, 4)))));
    fc.assert(
      fc.property(arb, ([shapes, a, b, c]) => {
        const [sa, sb, sc] = shapes as [number[], number[], number[]];
        const all = bruteShape(shapes)!;
        const [x, y, z] = shapes.map((s, k) => T.param(`x${k}`, s));
        const graph = [T.sub(x!, y!), T.select(T.gt(x!, z!), y!, z!), T.broadcastTo(T.mul(y!, 2), [2, ...all]), T.atan2(z!, T.add(T.square(x!), 1))];
        // Each output's value at each of its indices, by the definition.
        const expected: [number[], (idx: number[]) => number][] = [
          [bruteShape([sa, sb])!, (i) => at(a, sa, i) - at(b, sb, i)],
          [all, (i) => (at(a, sa, i) > at(c, sc, i) ? at(b, sb, i) : at(c, sc, i))],
          [[2, ...all], (i) => 2 * at(b, sb, i.slice(1))],
          [bruteShape([sa, sc])!, (i) => Math.atan2(at(c, sc, i), at(a, sa, i) * at(a, sa, i) + 1)],
        ];
        const bindings = { x0: a, x1: b, x2: c };
        for (const got of [T.interpret(graph, bindings), cpu.compileSync(graph).runSync(bindings)]) {
          expected.forEach(([shape, value], k) => {
            expect(got[k]!.shape).toEqual(shape);
            let f = 0;
            for (const idx of indices(shape)) expect(got[k]!.data[f++]).toBe(value(idx));
          });
        }
      }),
      { numRuns: 80 },
    );
  });
});
