import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { param, type Node } from "../src/index.ts";
import {
  ALL_OPS, BINARY_OPS, COMPARE_OPS, LEAF_OPS, LOOP_OPS, OP_TRAITS, REDUCE_OPS, STRUCT_OPS, UNARY_OPS, binary, compare, isElementwise,
  toposort, unary, type Op,
} from "../src/internals.ts";
import { conformanceCases } from "../src/testing/index.ts";
import { elementwiseExpr, roundExpr } from "../src/cpu/compiled/expr.ts";

// One node of every op, from one instance of each conformance case (scan bodies included).
function sampleNodes(): Map<Op, Node> {
  const nodes = new Map<Op, Node>();
  const visit = (outs: readonly Node[]) => {
    for (const n of toposort(outs)) {
      if (!nodes.has(n.op)) nodes.set(n.op, n);
      if (n.op === "scan") visit(n.attrs.body!.outputs);
    }
  };
  for (const c of conformanceCases()) visit(fc.sample(c.arbitrary("f64"), { numRuns: 1, seed: 44 })[0]!.outputs);
  return nodes;
}

describe("the op-traits table", () => {
  it("covers every op once, and the op lists are read off it", () => {
    const lists = [LEAF_OPS, UNARY_OPS, BINARY_OPS, COMPARE_OPS, REDUCE_OPS, STRUCT_OPS].flat();
    expect(new Set(lists).size).toBe(lists.length);
    expect([...ALL_OPS].sort()).toEqual([...lists].sort());
    expect(Object.keys(OP_TRAITS).sort()).toEqual([...ALL_OPS].sort());
  });

  it("holds traits that agree with one another", () => {
    for (const op of ALL_OPS) {
      const t = OP_TRAITS[op];
      const tag = `${op}: ${JSON.stringify(t)}`;
      expect(t.looping, tag).toBe(t.class === "loop");
      expect(LOOP_OPS.includes(op as never), tag).toBe(t.looping);
      // Reductions and loop ops get kernels of their own, but a scan, whose kernel writes its tuple_gets.
      expect(t.materialized, tag).toBe(t.class === "reduce" || (t.class === "loop" && op !== "scan"));
      expect(t.loopBudget === "none", tag).toBe(t.class !== "reduce" && t.class !== "loop");
      expect(t.cost > 0, tag).toBe(t.class === "elementwise");
      if (t.cheap) expect(t.class, tag).toBe("elementwise");
      if (t.rereads) expect(t.class, tag).toBe("loop");
      if (t.computes !== "operand") expect(t.class, tag).toBe("elementwise");
    }
    for (const op of [...UNARY_OPS, ...BINARY_OPS, ...COMPARE_OPS]) expect(OP_TRAITS[op].class).toBe("elementwise");
    for (const op of REDUCE_OPS) expect(OP_TRAITS[op].class).toBe("reduce");
  });

  it("says what dtype the tracing API gives an elementwise op of integers", () => {
    const i = param("i", [3], "i32");
    const b = param("b", [3], "bool");
    for (const op of UNARY_OPS) {
      const { computes } = OP_TRAITS[op];
      const y = unary(op, op === "not" ? b : i);
      expect(y.dtype, op).toBe(computes === "float" ? "f64" : computes === "bool" ? "bool" : "i32");
    }
    for (const op of BINARY_OPS) expect(binary(op, i, i).dtype, op).toBe(OP_TRAITS[op].computes === "float" ? "f64" : "i32");
    for (const op of COMPARE_OPS) {
      expect(OP_TRAITS[op].computes).toBe("bool");
      expect(compare(op, op === "and" || op === "or" ? b : i, op === "and" || op === "or" ? b : i).dtype, op).toBe("bool");
    }
  });

  it("agrees with the compiled CPU path: every elementwise op, and only those, renders as one expression; bool-valued ones are not rounded", () => {
    const nodes = sampleNodes();
    expect(ALL_OPS.filter((op) => !nodes.has(op))).toEqual([]);
    for (const [op, n] of nodes) {
      const args = n.inputs.map((_, k) => `a${k}`);
      if (isElementwise(op)) {
        expect(() => elementwiseExpr(n, args), op).not.toThrow();
        expect(roundExpr("bool", "e", op) === "e", op).toBe(OP_TRAITS[op].computes === "bool");
      } else {
        expect(() => elementwiseExpr(n, args), op).toThrow();
      }
    }
  });
});
