import { describe, expect, it } from "vitest";
import { data, matmul, mT, type Node } from "@ppl/tensor";
import type { FloatDType } from "@ppl/tensor/testing";
import { vulkanBackend } from "../src/backend.ts";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { limitsOf } from "../src/codegen/limits.ts";
import { planProgram } from "../src/codegen/program.ts";
import { usableDevices } from "../src/devices.ts";
import { checkMatmul } from "./matmul-check.ts";

// The tiled (and k-split) matmul kernels against the reference interpreter, on the shapes of
// regression models: X[N,D]·B[D,C] and Xᵀ[D,N]·R[N,C]. Those shapes have few columns and would
// run as the skinny kernels (matmul-skinny.test.ts), so these tests turn the skinny kernels off.
const device = usableDevices()[0];
const DTYPES: readonly FloatDType[] = device?.features.shaderFloat64 ? ["f32", "f64"] : ["f32"];

const TILED = { skinnyMatmulColumns: 0 } as const;

describe.runIf(device !== undefined)("tiled matmul", async () => {
  const limits = { ...limitsOf(device!), ...TILED };
  const backend = await vulkanBackend({ limits: TILED });
  const check = (out: Node, shapes: Record<string, readonly number[]>, dtype: FloatDType, k: number) => checkMatmul(backend, out, shapes, dtype, k);

  it("chooses the tiled kernel, and a k-split merged by each tile's last slice for Xᵀ·R", () => {
    const X = data("X", [20_000, 20], "f32"), R = data("R", [20_000, 4], "f32"), B = data("B", [20, 4], "f32");
    const xb = planProgram([matmul(X, B)], limits, kernelPrelude);
    expect(xb.kernels.map((k) => k.source).join()).toContain("tiled matmul");
    const xtr = planProgram([matmul(mT(X), R)], limits, kernelPrelude);
    expect(xtr.kernels.length).toBe(1);
    expect(xtr.kernels[0]!.source).toContain("the last merges them");
    // The partial products and the count of each tile's slices done.
    expect(xtr.scratch.map((s) => s.dtype).sort()).toEqual(["f32", "i32"]);
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
