// Loop-invariant values of a reduction's or a scatter's loop are computed before the loop
// (Scope.loop, ExprRenderer.value): once, not every iteration. Rendering with an H200's limits
// shows where they go; the results on lavapipe match the reference interpreter to the bit where
// the loop's order is the reference's.
import { describe, expect, it } from "vitest";
import { add, constant, data, exp, interpret, mul, scatterAdd, sum, type Node } from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { planProgram } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { usableDevices } from "../src/devices.ts";

// One iteration a loop trip, so that a loop body is one iteration's code (strided-loop.test.ts covers several).
const H200 = { ...REFERENCE_LIMITS.h200, loopIterationsInFlight: 1 };
const prelude = () => "// (math prelude)";
const sources = (outs: Node[]) => planProgram(outs, H200, prelude).kernels.map((k) => k.source);

// The statements of a kernel's first loop over `variable`: its body, from the line after its head to its closing brace.
function loopBody(source: string, variable: string): string {
  const lines = source.split("\n");
  const head = lines.findIndex((l) => new RegExp(`for \\(int ${variable} = `).test(l));
  expect(head, `a loop over ${variable}`).toBeGreaterThanOrEqual(0);
  const indent = lines[head]!.match(/^ */)![0];
  const end = lines.findIndex((l, i) => i > head && l === `${indent}}`);
  return lines.slice(head + 1, end).join("\n");
}

describe("loop-invariant code motion", () => {
  // sum_k x[c, k] · exp(s[c]): exp(s[c]) does not vary with k.
  const x = data("x", [4, 100_000], "f32");
  const scaled = mul(x, exp(data("s", [4, 1], "f32")));

  it("a split reduction over 100k terms computes a per-output exp before its loop", () => {
    const [src] = sources([sum(scaled, 1)]);
    const body = loopBody(src!, "k");
    expect(body).toContain("b"); // the loop still reads x
    expect(body).not.toContain("ppl_exp(");
    expect(src!.split("for (int k")[0]).toContain("ppl_exp(");
  });

  it("a one-thread-per-output reduction (short rows) does too", () => {
    const xs = data("x", [4096, 6], "f32");
    const [src] = sources([sum(mul(xs, exp(data("s", [4096, 1], "f32"))), 1)]);
    const body = loopBody(src!, "k\\d+");
    expect(body).not.toContain("ppl_exp(");
    expect(src).toContain("ppl_exp(");
  });

  it("segment sums of a scatter compute their element's invariants before the segment's loop", () => {
    const idx = Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 500);
    const upd = mul(data("u", [4, 20_000], "f32"), exp(data("s", [4, 1], "f32")));
    const out = scatterAdd(upd, constant(idx, [20_000], "i32"), 1, 500);
    const src = sources([out]).find((k) => k.includes("scatter_add"));
    expect(src, "a scatter kernel").toBeDefined();
    // The segment's loop (a thread an output, or lanes of one).
    const body = loopBody(src!, "s\\d*");
    expect(body).not.toContain("ppl_exp(");
    expect(src).toContain("ppl_exp(");
  });
});

const device = usableDevices()[0];
describe.runIf(device !== undefined)("loop-invariant code motion on lavapipe", () => {
  it("reductions and segment sums with invariant factors match the reference", async () => {
    const backend = await vulkanBackend();
    const values = (n: number, seed: number) => {
      let st = seed >>> 0;
      return Float64Array.from({ length: n }, () => Math.fround(((st = (Math.imul(st, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1));
    };
    const x = data("x", [4, 30_000], "f32");
    const sc = data("s", [4, 1], "f32");
    const term = add(mul(x, exp(sc)), mul(sc, sc));
    const idx = Array.from({ length: 30_000 }, (_, i) => (i * 7919) % 300);
    const outs = [sum(term, 1), sum(mul(data("y", [500, 5], "f32"), exp(data("t", [500, 1], "f32"))), 1), scatterAdd(term, constant(idx, [30_000], "i32"), 1, 300)];
    const bindings = { x: values(120_000, 1), s: values(4, 2), y: values(2500, 3), t: values(500, 4) };
    const exe = await backend.compile(outs);
    const got = await exe.run(bindings);
    exe.dispose?.();
    const want = interpret(outs, bindings);
    outs.forEach((_, j) => {
      const g = got[j]!.data, w = want[j]!.data;
      expect(g.length).toBe(w.length);
      for (let i = 0; i < w.length; i++) expect(Math.abs(g[i]! - w[i]!), `output ${j} element ${i}`).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(w[i]!)) * 30);
    });
  });
});
