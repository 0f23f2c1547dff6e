import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { add, concat, data, exp, interpret, mul, pad, param, reshape, slice, square, sub, sum, type Node } from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { planProgram } from "../src/codegen/program.ts";
import { usableDevices } from "../src/devices.ts";
import { reals, slicedReads, tensorValueOf } from "./helpers.ts";

// A split reduction whose readers add its partials themselves (inline-slices.ts, reduce/parallel.ts):
// each workgroup stores its partial, and the count and merge of the last workgroup leave the kernel.
// Only a small gradient's assembly reads them so: each of its elements adds the chain's partials
// anew, so it may be at most READER_RATIO times the sums' size.
const device = usableDevices()[0];
const GPU = { ...REFERENCE_LIMITS.h200, loopIterationsInFlight: 1 };

/**
 * lp and a gradient-like vector for C chains of a regression over N rows with a J-vector
 * parameter: lp = Σ_rows −r²/2 − Σ a², grad = [Σ r, Σ r·x, −2a]: the two row sums padded and
 * concatenated beside the J-vector's piece, as a gradient's assembly is.
 */
function assembly(C: number, N: number, J: number, dtype: "f32" | "f64"): { lp: Node; grad: Node } {
  const theta = param("theta", [C, 2], dtype);
  const a = param("a", [C, J], dtype);
  const x = data("x", [N], dtype);
  const y = data("y", [N], dtype);
  const col = (k: number) => reshape(slice(theta, [undefined, { start: k, stop: k + 1 }]), [C, 1]);
  const r = sub(y, add(col(0), mul(col(1), x)));
  const s0 = sum(r, [1]);
  const s1 = sum(mul(r, x), [1]);
  const lp = add(sum(mul(-0.5, square(r)), [1]), mul(-1, sum(square(a), [1])));
  const scalars = add(pad(reshape(s0, [C, 1]), [[0, 0], [0, 1]]), pad(reshape(exp(mul(1e-3, s1)), [C, 1]), [[0, 0], [1, 0]]));
  return { lp, grad: concat([scalars, mul(-2, a)], 1) };
}

const kernelOf = (kernels: readonly { source: string }[], text: string) => kernels.find((k) => k.source.includes(text));

describe("sums whose readers add their partials: planning", () => {
  it("a regression's row sums read by a small gradient's assembly leave their partials: no count, no merge", () => {
    const { lp, grad } = assembly(4, 100_000, 8, "f32");
    const p = planProgram([lp, grad], GPU, () => "");
    const sums = kernelOf(p.kernels, "reductions over the same elements in one pass")!;
    expect(sums.source).toContain("their partials added by the readers");
    expect(sums.source).not.toContain("atomicAdd");
    const slices = Number(/(\d+) workgroups per output, their partials/.exec(sums.source)![1]);
    expect(slices).toBeGreaterThan(1);
    // lp and the gradient each add the partials of the sums they read, every partial loaded
    // before any is added (no loop: its loads would wait for one another).
    const adds = (src: string) => slicedReads(src).filter((q) => q === slices).length;
    expect(p.kernels.reduce((acc, k) => acc + adds(k.source), 0)).toBe(3);
    const reader = p.kernels[p.kernels.length - 1]!;
    expect(reader.nodes).toEqual([p.outputs[1]]);
    expect(adds(reader.source)).toBe(2);
    expect(reader.source).not.toMatch(/for \(int q/);
  });

  it("keeps the merge where a large gradient's assembly reads the sums", () => {
    const { lp, grad } = assembly(4, 100_000, 2000, "f32");
    const p = planProgram([lp, grad], GPU, () => "");
    expect(kernelOf(p.kernels, "reductions over the same elements in one pass")!.source).toContain("the last merges their partials");
    expect(p.kernels.flatMap((k) => slicedReads(k.source))).toEqual([]);
  });

  it("keeps the merge where a reader evaluates the sum at every element, where a reduction reads it, and where it reads only data", () => {
    const C = 4, N = 100_000;
    const t = param("t", [C, 1], "f32");
    const x = data("x", [N], "f32");
    // Read at every element of a [C, N] product: the partials would be added N times.
    const s = sum(mul(x, t), [1]);
    const wide = mul(reshape(s, [C, 1]), x);
    // Read by a reduction over the rows.
    const s2 = sum(mul(x, t), [1]);
    const reduced = sum(mul(reshape(s2, [C, 1]), x), [1]);
    // A sum of data only (run once) read by an evaluation.
    const sx = sum(square(x));
    const once = mul(t, sx);
    const key = (n: Node) => (n === sx ? "once" : "step");
    const p = planProgram([wide, reduced, once], GPU, () => "", { merge: key });
    expect(p.kernels.some((k) => k.source.includes("their partials added by the readers"))).toBe(false);
    expect(p.kernels.filter((k) => k.source.includes("the last merges their partials")).length).toBeGreaterThanOrEqual(2);
  });

  it("a group of sums keeps its merge when one member's reader is too large", () => {
    const C = 4, N = 100_000;
    const t = param("t", [C, 1], "f32");
    const x = data("x", [N], "f32");
    const s0 = sum(mul(x, t), [1]);
    const s1 = sum(mul(square(x), t), [1]);
    const p = planProgram([add(s0, 1), mul(reshape(s1, [C, 1]), x)], GPU, () => "");
    const sums = kernelOf(p.kernels, "reductions over the same elements in one pass")!;
    expect(sums.source).toContain("the last merges their partials");
    expect(p.kernels.some((k) => k.source.includes("for (int q = 0;"))).toBe(false);
  });

});

describe.runIf(device !== undefined)("sums whose readers add their partials on the device", () => {
  const dtype = device?.features.shaderFloat64 ? "f64" : "f32";
  const tolerance = dtype === "f64" ? 1e-9 : 2e-3;
  // Several workgroups an output on lavapipe, as a GPU splits them.
  const split = { parallelReduceMin: 64, busyGroups: 64 };

  it("equal the reference interpreter, for random sizes and values", async () => {
    const backend = await vulkanBackend({ limits: split });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 2100, max: 20_000 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 1000 }), async (C, N, J, seed) => {
        const { lp, grad } = assembly(C, N, J, dtype);
        const planned = planProgram([lp, grad], { ...REFERENCE_LIMITS.lavapipe, ...split }, () => "");
        expect(planned.kernels.some((k) => k.source.includes("their partials added by the readers"))).toBe(true);
        const b = {
          theta: tensorValueOf(dtype, [C, 2], reals(C * 2, seed).map((v) => v * 0.01)),
          a: tensorValueOf(dtype, [C, J], reals(C * J, seed + 1)),
          x: tensorValueOf(dtype, [N], reals(N, seed + 2).map((v) => v * 0.001)),
          y: tensorValueOf(dtype, [N], reals(N, seed + 3).map((v) => v * 0.01)),
        };
        const exe = await backend.compile([lp, grad]);
        try {
          const got = await exe.run(b);
          const want = interpret([lp, grad], b);
          for (let i = 0; i < 2; i++) {
            expect(got[i]!.shape).toEqual(want[i]!.shape);
            got[i]!.data.forEach((v, e) => expect(Math.abs(v - want[i]!.data[e]!)).toBeLessThanOrEqual(tolerance * (1 + Math.abs(want[i]!.data[e]!))));
          }
        } finally {
          exe.dispose?.();
        }
      }),
      { numRuns: 6, seed: 11 },
    );
  });
});
