// A shader cannot raise an error, so the device never reads or writes outside a tensor whatever
// the index values: a gather clamps its index into the axis, a scatter_add leaves an entry out of
// range in no target. Indices computed on the device (from data, here 1-based positions shifted
// by one, as at() does) are not seen by the host's check at bind time; ppl checks them against the
// data before a run (packages/ppl/src/model/check-indices.ts), and these tests show what a run
// given such indices anyway computes: finite values from inside the tensors, no fault.
import { describe, expect, it } from "vitest";
import { cast, data, gather, scatterAdd, sub, type TensorValue } from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { usableDevices } from "../src/devices.ts";

const device = usableDevices()[0];

describe.runIf(device !== undefined)("indices computed on the device, out of range", async () => {
  const backend = await vulkanBackend();
  const dtype = device?.features.shaderFloat64 ? "f64" : "f32";
  const x = data("x", [4], dtype);
  const positions = data("g", [5], dtype);
  const index = cast(sub(positions, 1), "i32");
  const bindings: Record<string, TensorValue> = {
    x: { dtype, shape: [4], data: Float64Array.of(10, 20, 30, 40) },
    g: { dtype, shape: [5], data: Float64Array.of(1, 9, 0, -5, 4) },
  };

  it("a gather clamps each index into the axis", async () => {
    const exe = await backend.compile([gather(x, index, 0)]);
    try {
      const [out] = await exe.run(bindings);
      expect(Array.from(out!.data)).toEqual([10, 40, 10, 10, 40]);
    } finally {
      exe.dispose?.();
    }
  });

  it("a scatter_add drops the entries out of range", async () => {
    const updates = data("u", [5], dtype);
    const exe = await backend.compile([scatterAdd(updates, index, 0, 4)]);
    try {
      const [out] = await exe.run({ ...bindings, u: { dtype, shape: [5], data: Float64Array.of(1, 2, 4, 8, 16) } });
      expect(Array.from(out!.data)).toEqual([1, 0, 0, 16]);
    } finally {
      exe.dispose?.();
    }
  });
});
