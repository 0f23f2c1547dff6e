import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { checkConformanceCase, conformanceCases } from "@ppl/tensor/testing";
import { vulkanBackend } from "../src/backend.ts";
import { usableDevices } from "../src/devices.ts";

// The op conformance suite of the tensor package, unchanged, against the Vulkan backend
// (lavapipe in CI). Every case compiles its own shaders, so CI runs few instances per case;
// PPL_CONFORMANCE_RUNS raises that for a thorough run on a real GPU.
const RUNS = Number(process.env.PPL_CONFORMANCE_RUNS ?? 2);
const device = usableDevices()[0];

describe.runIf(device !== undefined)("vulkan backend conformance", async () => {
  const backend = await vulkanBackend();
  const cases = conformanceCases();
  const dtypes = device?.features.shaderFloat64 ? (["f32", "f64"] as const) : (["f32"] as const);
  for (const dtype of dtypes) {
    describe(dtype, () => {
      for (const c of cases) {
        it(c.name, async () => {
          await checkConformanceCase(backend, c, { dtype, numRuns: RUNS, seed: 7 });
        });
      }
    });
  }
  it("runs no node on the host", async () => {
    const c = cases[0]!;
    const inst = fc.sample(c.arbitrary("f32"), { numRuns: 1, seed: 1 })[0]!;
    const exe = await backend.compile(inst.outputs);
    expect(exe.stats.hostNodes).toBe(0);
  });
});
