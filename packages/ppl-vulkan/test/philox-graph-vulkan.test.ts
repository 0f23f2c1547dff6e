/**
 * The random streams as tensor-IR graphs (ppl's random/philox-graph.ts) on the Vulkan backend
 * (lavapipe in CI): the momenta a device would draw where its trajectories run. In f64 a batch's
 * normals are the host's streamNormals bit for bit; in f32 (PPL_LONG=1: another shader's compile,
 * several seconds on lavapipe) they are its values to f32's rounding.
 */
import { describe, expect, it } from "vitest";
import { vulkanBackend, usableDevices } from "@ppl/vulkan";
import { normalsGraph, Purpose, seedKey, streamNormals } from "@ppl/ppl/internals";

const device = usableDevices()[0];
const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";

describe.runIf(device !== undefined)("Philox graphs on the device", async () => {
  const backend = await vulkanBackend();
  const chains = [0, 1, 7, 4095, 123456, 2 ** 31 - 1];
  const key = seedKey(2 ** 40 + 12345);
  const [iteration, sub, dim] = [499, 3, 5];
  const expected = chains.map((id) => {
    const out = new Float64Array(dim);
    streamNormals(key, id, iteration, Purpose.Momentum, sub, out);
    return Array.from(out);
  });
  const run = async (dtype: "f32" | "f64"): Promise<Float64Array> => {
    const g = normalsGraph(chains.length, dim, dtype);
    const exe = await backend.compile([g.normals]);
    expect(exe.stats.hostNodes).toBe(0);
    const [normals] = await exe.run({
      chain_id: Float64Array.from(chains), iteration: Float64Array.of(iteration), purpose_word: Float64Array.of(Purpose.Momentum | (sub << 8)),
      key_lo: Float64Array.of(key.lo | 0), key_hi: Float64Array.of(key.hi | 0),
    });
    return normals!.data;
  };

  it.runIf(device?.features.shaderFloat64)("f64: streamNormals' bits", async () => {
    const got = await run("f64");
    chains.forEach((id, c) => expect(Array.from(got.subarray(c * dim, (c + 1) * dim)), `chain ${id}`).toEqual(expected[c]));
  });

  it.runIf(LONG)("f32: streamNormals' values to f32's rounding", async () => {
    const got = await run("f32");
    chains.forEach((id, c) => expected[c]!.forEach((x, i) => expect(Math.abs(got[c * dim + i]! - x), `chain ${id} element ${i}`).toBeLessThan(1e-5 * Math.max(1, Math.abs(x)))));
  });
});
