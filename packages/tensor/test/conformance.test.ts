import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compiledBackend } from "../src/cpu/compiled/backend.ts";
import { ALL_OPS, checkConformanceCase, conformanceCases, opsOf } from "../src/testing/index.ts";

// The compiled CPU path against the reference interpreter, on every op of the IR, in f64 and f32.
const backend = compiledBackend();
const cases = conformanceCases();

describe("conformance suite", () => {
  it("has a case for every op of the IR, and each case's graphs use the ops it claims", () => {
    const seen = new Set<string>();
    for (const c of cases) {
      const used = new Set<string>();
      for (const inst of fc.sample(c.arbitrary("f64"), { numRuns: 20, seed: 1 })) for (const op of opsOf(inst.outputs)) used.add(op);
      for (const op of c.ops) expect(used, `${c.name} never builds ${op}`).toContain(op);
      used.forEach((op) => seen.add(op));
    }
    expect(ALL_OPS.filter((op) => !seen.has(op))).toEqual([]);
  });
});

for (const dtype of ["f64", "f32"] as const) {
  describe(`compiled CPU == reference interpreter (${dtype})`, () => {
    for (const c of cases) {
      it(c.name, async () => {
        await checkConformanceCase(backend, c, { dtype, numRuns: dtype === "f64" ? 30 : 12 });
      });
    }
  });
}
