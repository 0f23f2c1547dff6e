// Shared check of the matmul tests: a product on a backend against the reference interpreter.
import { expect } from "vitest";
import { abs, interpret, matmul, type Backend, type Node } from "@ppl/tensor";
import type { FloatDType } from "@ppl/tensor/testing";

/** Deterministic values in [-2, 2), rounded to f32 so both sides read the same inputs. */
export function matmulValues(n: number, seed: number): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround((s / 2 ** 32) * 4 - 2);
  });
}

/**
 * Runs the matmul node `out` on `backend` with deterministic values for the named inputs and
 * checks |got − want| ≤ 2·k·eps·(|A|·|B|) elementwise: the standard bound for a dot product of length k.
 */
export async function checkMatmul(backend: Backend, out: Node, shapes: Record<string, readonly number[]>, dtype: FloatDType, k: number): Promise<void> {
  const bindings = Object.fromEntries(Object.entries(shapes).map(([name, shape], i) => [name, matmulValues(shape.reduce((a, b) => a * b, 1), 17 + i)]));
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
