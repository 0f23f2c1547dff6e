// Shared check of the op-level GPU tests: outputs compiled for the Vulkan backend (in f32 or f64,
// with no node left to the host) against the reference interpreter on the same bindings.
import { expect } from "vitest";
import { interpret, type Backend, type Node } from "@ppl/tensor";
import { castFloats, optimize } from "@ppl/tensor/internals";

/** Runs `outputs` on `backend` in `dtype` and expects every element within tolerance·(1 + |reference|) of the f64 reference. */
export async function expectReferenceValues(
  backend: Backend, outputs: Node[], bindings: Record<string, ArrayLike<number>>, dtype: "f32" | "f64", tolerance: number,
): Promise<void> {
  const want = interpret(outputs, bindings);
  const exe = await backend.compile(optimize(dtype === "f32" ? castFloats(outputs, "f32") : outputs));
  expect(exe.stats.hostNodes).toBe(0);
  const got = await exe.run(Object.fromEntries(Object.entries(bindings).map(([k, x]) => [k, Float64Array.from(x)])));
  want.forEach((w, i) => w.data.forEach((v, j) => {
    const g = Number(got[i]!.data[j]);
    expect(Math.abs(g - v) <= tolerance * (1 + Math.abs(v)), `output ${i}[${j}]: ${g} vs ${v}`).toBe(true);
  }));
  exe.dispose?.();
}
