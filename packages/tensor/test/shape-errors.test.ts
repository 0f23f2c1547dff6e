import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";
import { ShapeError } from "../src/index.ts";
import { BINARY_OPS, COMPARE_OPS, fmt } from "../src/internals.ts";
import { shapeArb } from "../src/testing/index.ts";

// Shape errors are thrown while the graph is traced, and the message names the op and the shapes involved.
function expectShapeError(f: () => unknown, ...needles: string[]): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err, "expected a ShapeError").toBeInstanceOf(ShapeError);
  for (const n of needles) expect((err as Error).message).toContain(n);
}

// Two shapes that do not broadcast: some aligned axis differs and neither side is 1.
const incompatiblePair = shapeArb(1, 3).chain((a) =>
  fc.tuple(fc.integer({ min: 0, max: a.length - 1 }), fc.integer({ min: 2, max: 5 }), fc.integer({ min: 0, max: 2 })).map(([axis, d, lead]) => {
    const x = a.map((v, i) => (i === axis && v === 1 ? 2 : v));
    const y = x.map((v, i) => (i === axis ? (v === d ? d + 1 : d) : v));
    return [x, [...Array(lead).fill(1), ...y]] as const;
  }),
);

describe("shape errors at trace time", () => {
  for (const op of [...BINARY_OPS, ...COMPARE_OPS]) {
    it(`${op}: incompatible broadcast names the op and both shapes`, () => {
      const logical = op === "and" || op === "or";
      fc.assert(
        fc.property(incompatiblePair, ([a, b]) => {
          const x = T.param("a", a, logical ? "bool" : "f64"), y = T.param("b", b, logical ? "bool" : "f64");
          const build = () => ((BINARY_OPS as readonly string[]).includes(op) ? TI.binary(op as (typeof BINARY_OPS)[number], x, y) : TI.compare(op as (typeof COMPARE_OPS)[number], x, y));
          expectShapeError(build, `${op}:`, fmt(a), fmt(b));
        }),
        { numRuns: 20 },
      );
    });
  }

  it("select: the condition and both branches", () => {
    fc.assert(
      fc.property(incompatiblePair, ([a, b]) => {
        expectShapeError(() => T.select(T.param("c", a, "bool"), T.param("x", b), 0), "select:", fmt(a), fmt(b));
        expectShapeError(() => T.select(T.param("c", [], "bool"), T.param("x", a), T.param("y", b)), "select:", fmt(a), fmt(b));
      }),
      { numRuns: 20 },
    );
  });

  it("matmul: inner dimensions and batch dimensions", () => {
    expectShapeError(() => T.matmul(T.param("a", [2, 3]), T.param("b", [4, 5])), "matmul:", "[2,3]", "[4,5]");
    expectShapeError(() => T.matmul(T.param("a", [3]), T.param("b", [4])), "matmul:", "[3]", "[4]");
    expectShapeError(() => T.matmul(T.param("a", [2, 2, 3]), T.param("b", [3, 3, 5])), "matmul:", "[2,2,3]", "[3,3,5]");
    expectShapeError(() => T.matmul(T.param("a", []), T.param("b", [2])), "matmul:", "[]", "[2]");
  });

  it("triangular_solve and cholesky: sizes, batches, squareness", () => {
    expectShapeError(() => T.triangularSolve(T.param("l", [3, 3]), T.param("b", [4, 2])), "triangular_solve:", "[3,3]", "[4,2]");
    expectShapeError(() => T.triangularSolve(T.param("l", [2, 3, 3]), T.param("b", [4, 3, 1])), "triangular_solve:", "[2,3,3]", "[4,3,1]");
    expectShapeError(() => T.triangularSolve(T.param("l", [3, 2]), T.param("b", [3])), "triangular_solve:", "[3,2]");
    expectShapeError(() => T.cholesky(T.param("a", [3, 4])), "cholesky:", "[3,4]");
    expectShapeError(() => T.logdetSpd(T.param("a", [2, 3])), "[2,3]");
  });

  it("reshape, broadcast_to, transpose, mT", () => {
    expectShapeError(() => T.reshape(T.param("x", [2, 3]), [4, 2]), "reshape:", "[2,3]", "[4,2]");
    expectShapeError(() => T.broadcastTo(T.param("x", [3]), [2, 4]), "broadcast_to:", "[3]", "[2,4]");
    expectShapeError(() => T.broadcastTo(T.param("x", [2, 3]), [3]), "broadcast_to:", "[2,3]", "[3]");
    expectShapeError(() => T.transpose(T.param("x", [2, 3]), [0, 0]), "transpose:", "[2,3]");
    expectShapeError(() => T.transpose(T.param("x", [2, 3]), [1, 0, 2]), "transpose:", "[2,3]");
    expectShapeError(() => T.mT(T.param("x", [3])), "mT:", "[3]");
  });

  it("slice, index, pad, concat, stack", () => {
    expectShapeError(() => T.slice(T.param("x", [3]), [{}, {}]), "slice:", "[3]");
    expectShapeError(() => T.slice(T.param("x", [3]), [{ step: 0 }]), "slice:");
    expectShapeError(() => T.index(T.param("x", [2, 3]), 3, 0), "index:", "[2,3]");
    expectShapeError(() => T.pad(T.param("x", [2, 3]), [[1, 1]]), "pad:", "[2,3]");
    expectShapeError(() => T.pad(T.param("x", [2]), [[-1, 0]]), "pad:");
    expectShapeError(() => T.concat([T.param("a", [2, 3]), T.param("b", [2, 4])], 0), "concat:", "[2,3]", "[2,4]");
    expectShapeError(() => T.concat([T.param("a", [2, 3]), T.param("b", [3])], 0), "concat:", "[2,3]", "[3]");
    expectShapeError(() => T.concat([T.param("a", [2])], 1), "concat:");
    expectShapeError(() => T.stack([T.param("a", [2]), T.param("b", [3])]), "concat:", "[1,2]", "[1,3]");
  });

  it("reductions, cumsum, gather, scatter_add: axes and index shapes", () => {
    expectShapeError(() => T.sum(T.param("x", [2, 3]), 2), "reduce_sum:", "rank 2");
    expectShapeError(() => T.max(T.param("x", [2, 3]), [0, -2]), "reduce_max:", "repeated");
    expectShapeError(() => T.mean(T.param("x", [2]), 1), "mean:");
    expectShapeError(() => T.cumsum(T.param("x", [2]), 1), "cumsum:");
    expectShapeError(() => T.gather(T.param("x", [2, 3]), T.data("i", [2], "i32"), 2), "gather:");
    expectShapeError(() => T.scatterAdd(T.param("u", [2, 3]), T.data("i", [4], "i32"), 0, 5), "scatter_add:", "[2,3]", "[4]");
  });

  it("scan: xs lengths and carries that change shape", () => {
    expectShapeError(() => T.scan(([c]) => ({ carry: [c!] }), [T.constant(0)], [T.param("a", [3]), T.param("b", [4])]), "scan:", "[4]");
    expectShapeError(() => T.scan(([c]) => ({ carry: [T.reshape(c!, [1])] }), [T.constant(0)], [T.param("a", [3])]), "scan:", "[]", "[1]");
    expectShapeError(() => T.scan(([c]) => ({ carry: [c!] }), [T.constant(0)]), "scan:");
  });

  it("constants whose values do not fill the shape", () => {
    expectShapeError(() => T.constant([1, 2, 3], [2, 2]), "constant:", "[2,2]");
  });
});

// A model file may run without a type check: an operand that is neither a number nor a node is a
// DTypeError naming the op and what came, not a TypeError from inside the graph builder.
describe("operands that are not numbers or tensors", () => {
  const x = T.param("x", [3]);
  const wrong: unknown[] = ["1", undefined, null, [1, 2], {}, true];
  it.each(wrong.map((w) => [w]))("%j into a binary op, a comparison, a select, a unary op and a fluent method", (w) => {
    const cases: [() => unknown, RegExp][] = [
      [() => T.add(x, w as number), /^add: expected a number or a tensor, got /],
      [() => T.mul(w as number, x), /^mul: expected a number or a tensor, got /],
      [() => T.lt(x, w as number), /^lt: expected a number or a tensor, got /],
      [() => T.select(T.gt(x, 0), w as number, x), /^select: expected a number or a tensor, got /],
      [() => T.exp(w as number), /^exp: expected a number or a tensor, got /],
      [() => x.sub(w as number), /^sub: expected a number or a tensor, got /],
      [() => TI.lift(w as number), /^an operand: expected a number or a tensor, got /],
    ];
    for (const [f, message] of cases) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(T.DTypeError);
      expect((err as Error).message).toMatch(message);
    }
  });
  it("names a string and an array as such", () => {
    expect(() => T.add(x, "1" as unknown as number)).toThrow('add: expected a number or a tensor, got the string "1"');
    expect(() => T.add(x, [1, 2] as unknown as number)).toThrow("add: expected a number or a tensor, got an array of 2 (make it a tensor with constant([...], [n]))");
  });
});
