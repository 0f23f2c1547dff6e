import { describe, expect, it } from "vitest";
import { abs, data, interpret, matmul, mT, type Node } from "@ppl/tensor";
import type { FloatDType } from "@ppl/tensor/testing";
import { vulkanBackend } from "../src/backend.ts";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { limitsOf } from "../src/codegen/limits.ts";
import { planProgram } from "../src/codegen/program.ts";
import { usableDevices } from "../src/devices.ts";

// The tiled (and k-split) matmul kernels against the reference interpreter, on the shapes of
// regression models: X[N,D]·B[D,C] and Xᵀ[D,N]·R[N,C].
const device = usableDevices()[0];
const DTYPES: readonly FloatDType[] = device?.features.shaderFloat64 ? ["f32", "f64"] : ["f32"];

function values(n: number, seed: number): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround((s / 2 ** 32) * 4 - 2);
  });
}

// |got − want| ≤ k·eps·(|A|·|B|) elementwise: the standard bound for a dot product of length k.
async function check(out: Node, shapes: Record<string, readonly number[]>, dtype: FloatDType, k: number): Promise<void> {
  const backend = await vulkanBackend();
  const bindings = Object.fromEntries(Object.entries(shapes).map(([name, shape], i) => [name, values(shape.reduce((a, b) => a * b, 1), 17 + i)]));
  const exe = await backend.compile([out]);
  const [got] = await exe.run(bindings);
  exe.dispose?.();
  const [want] = interpret([out], bindings);
  const [A, B] = out.inputs as [Node, Node];
  const [scale] = interpret([matmul(abs(A), abs(B))], bindings);
  const eps = dtype === "f32" ? 2 ** -24 : 2 ** -53;
  expect(got!.data.length).toBe(want!.data.length);
  for (let i = 0; i < want!.data.length; i++) {
    const allowed = 2 * k * eps * scale!.data[i]! + 1e-30;
    const diff = Math.abs(got!.data[i]! - want!.data[i]!);
    if (!(diff <= allowed)) expect.fail(`element ${i}: got ${got!.data[i]}, want ${want!.data[i]} (allowed ${allowed})`);
  }
}

describe.runIf(device !== undefined)("tiled matmul", () => {
  const limits = limitsOf(device!);

  it("chooses the tiled kernel, and a k-split with a merge pass for Xᵀ·R", () => {
    const X = data("X", [20_000, 20], "f32"), R = data("R", [20_000, 4], "f32"), B = data("B", [20, 4], "f32");
    const xb = planProgram([matmul(X, B)], limits, kernelPrelude);
    expect(xb.kernels.map((k) => k.source).join()).toContain("tiled matmul");
    const xtr = planProgram([matmul(mT(X), R)], limits, kernelPrelude);
    expect(xtr.kernels.length).toBe(2);
    expect(xtr.scratch.length).toBe(1);
  });

  for (const dtype of DTYPES) {
    it(`X[N,D]·B[D,C], few and many columns, ${dtype}`, async () => {
      for (const [n, d, c] of [[20_000, 20, 4], [30_000, 12, 1], [2_000, 10, 64]] as const) {
        const X = data("X", [n, d], dtype), B = data("B", [d, c], dtype);
        await check(matmul(X, B), { X: [n, d], B: [d, c] }, dtype, d);
      }
    });

    it(`Xᵀ[D,N]·R[N,C] (a long k, split and merged), ${dtype}`, async () => {
      for (const [n, d, c] of [[20_000, 20, 4], [70_000, 7, 3]] as const) {
        const X = data("X", [n, d], dtype), R = data("R", [n, c], dtype);
        await check(matmul(mT(X), R), { X: [n, d], R: [n, c] }, dtype, n);
      }
    });
  }

  it("batched operands with broadcasting, f32", async () => {
    const A = data("A", [3, 200, 50], "f32"), B = data("B", [50, 30], "f32");
    await check(matmul(A, B), { A: [3, 200, 50], B: [50, 30] }, "f32", 50);
    const C = data("C", [2, 1, 64, 33], "f32"), D = data("D", [3, 33, 70], "f32");
    await check(matmul(C, D), { C: [2, 1, 64, 33], D: [3, 33, 70] }, "f32", 33);
  });
});
