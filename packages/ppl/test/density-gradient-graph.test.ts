// The gradient graph every runner evaluates is built once per model, dtype and chain count, in ppl's
// density layer; its values are the model's log density and gradient.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { getBackend, type TensorValue } from "@ppl/tensor";
import { compileModel, gradientGraph } from "@ppl/ppl";
import eightSchools from "../../../examples/eight_schools.ts";

const data = JSON.parse(readFileSync(new URL("../../../examples/eight_schools.json", import.meta.url), "utf8"));
const m = compileModel(eightSchools, data);

describe("gradientGraph", () => {
  it("is memoized per model, dtype and chain count", () => {
    expect(gradientGraph(m)).toBe(gradientGraph(m));
    expect(gradientGraph(m, { dtype: "f32" })).toBe(gradientGraph(m, { dtype: "f32" }));
    expect(gradientGraph(m, { dtype: "f32", chains: 3 })).not.toBe(gradientGraph(m, { dtype: "f32" }));
  });

  it("casts every float, the position leaf included, and batches over a leading chain axis", () => {
    const g = gradientGraph(m, { dtype: "f32", chains: 3 });
    expect([g.lp.dtype, g.grad.dtype, g.q.dtype]).toEqual(["f32", "f32", "f32"]);
    expect(g.lp.shape).toEqual([3]);
    expect(g.grad.shape).toEqual([3, m.dim]);
    expect(g.q.shape).toEqual([3, m.dim]);
  });

  it("evaluates to the model's log density, and its gradient matches central differences", async () => {
    const g = gradientGraph(m);
    const ref = await getBackend("reference");
    const exe = ref.compileSync!([g.lp, g.grad]);
    const at = (x: Float64Array) => {
      const q: TensorValue = { dtype: "f64", shape: [m.dim], data: x };
      return exe.runSync!({ ...m.dataBindings, q });
    };
    const x = Float64Array.from({ length: m.dim }, (_, i) => 0.3 * Math.sin(i + 1));
    const [lp, grad] = at(x);
    expect(lp!.data[0]).toBeCloseTo(m.logDensityAt(x), 10);
    for (let i = 0; i < m.dim; i++) {
      const h = 1e-6;
      const up = Float64Array.from(x), dn = Float64Array.from(x);
      up[i]! += h;
      dn[i]! -= h;
      const fd = (m.logDensityAt(up) - m.logDensityAt(dn)) / (2 * h);
      expect(grad!.data[i]).toBeCloseTo(fd, 5);
    }
  });
});
