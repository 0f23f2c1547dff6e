import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Node } from "@ppl/tensor";
import { ALL_OPS, OP_TRAITS, isReduce, toposort, type Op } from "@ppl/tensor/internals";
import { conformanceCases } from "@ppl/tensor/testing";
import { checkLinalgLoopBudget } from "../src/codegen/linalg-units.ts";
import { checkScanLoopBudget, checkSerialLoopBudget } from "../src/codegen/scan-budget.ts";
import { ExprRenderer } from "../src/codegen/expr.ts";
import { schedule } from "../src/codegen/schedule.ts";
import { Scope } from "../src/codegen/scope.ts";
import type { Storage } from "../src/codegen/storage.ts";
import { isElementMap, unitWriter } from "../src/codegen/units.ts";

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

const throws = (f: () => void): boolean => {
  try {
    f();
    return false;
  } catch {
    return true;
  }
};

describe("the op-traits table agrees with the Vulkan codegen", () => {
  const nodes = sampleNodes();

  it("has a node of every op to check", () => {
    expect(ALL_OPS.filter((op) => !nodes.has(op))).toEqual([]);
  });

  // Storage holding every node but `node` (and, with `own`, `node` itself too): what a kernel computing it sees.
  const storageFor = (node: Node, own: boolean): Storage => ({
    read: (n, idx) => (n === node && !own ? undefined : `b${n.id}[${idx.join(",")}]`),
    write: (n, flat, value) => `b${n.id}[${flat}] = ${value};`,
  });

  it("materialized: the expression renderer computes inline exactly the ops that are not materialized, and the schedule stores the others", () => {
    for (const [op, n] of nodes) {
      const { class: cls, materialized } = OP_TRAITS[op];
      // Leaves are read from storage, a scan's outputs are its tuple_gets' storage, lpdf_sum is lowered before codegen.
      if (cls === "leaf" || cls === "tuple" || cls === "composite" || op === "scan") continue;
      const r = new ExprRenderer(storageFor(n, false));
      const inline = () => r.compute(n, n.shape.map((_, a) => `i${a}`), new Scope());
      if (materialized) expect(inline, op).toThrow(/must be materialized/);
      else expect(inline, op).not.toThrow();
      // One reader at the node's size (a reshape adding an axis): no sharing, no broadcast.
      const reader = Node.make("reshape", n.dtype, [...n.shape, 1], [n]);
      expect(schedule([reader]).isStored(n), op).toBe(materialized);
    }
  });

  it("looping: the unit of a loop op runs a loop (or a scan's recurrence), a map's unit none", () => {
    for (const [op, n] of nodes) {
      const { class: cls, looping } = OP_TRAITS[op];
      if (cls === "leaf" || cls === "tuple" || cls === "composite") continue;
      expect(isElementMap(n), op).toBe(!looping && !isReduce(op));
      if (isReduce(op)) continue;
      const storage = storageFor(n, true);
      const scope = new Scope();
      let scanned = false;
      unitWriter(n).emit("u", scope, { r: new ExprRenderer(storage), storage, scan: () => void (scanned = true) });
      expect(scanned || scope.lines.some((l) => /\b(for|while)\s*\(/.test(l)), op).toBe(looping);
    }
  });

  it("loop budget: with no loop iterations to spare, each plan-time check refuses exactly the ops the table gives it", () => {
    for (const [op, n] of nodes) {
      const budget = OP_TRAITS[op].loopBudget;
      expect(throws(() => checkSerialLoopBudget([n], 0)), op).toBe(budget === "serial");
      expect(throws(() => checkLinalgLoopBudget([n], 0)), op).toBe(budget === "linalg");
      expect(throws(() => checkScanLoopBudget([n], 0)), op).toBe(budget === "scan");
    }
  });
});
