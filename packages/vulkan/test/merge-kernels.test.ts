import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { add, cast, data, exp, gather, logsumexp, max, mul, reshape, scatterAdd, sum, type Node } from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { limitsOf, type RenderLimits } from "../src/codegen/limits.ts";
import { dependencyLevels } from "../src/codegen/merge-kernels.ts";
import { planProgram } from "../src/codegen/program.ts";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { usableDevices } from "../src/devices.ts";
import { lavapipe } from "./helpers.ts";

// Independent kernels of a program run as one dispatch (merge-kernels.ts). The merged program
// must compute exactly what the kernel-per-node program does (each part is the same code on the
// same workgroup sizes), in as many dispatches as the program has dependency levels.

const device = usableDevices()[0] ?? lavapipe();
// Parallel (cooperative, split) reductions on small inputs, so that kernels of both kinds meet.
const FORCE: Partial<RenderLimits> = { parallelReduceMin: 64 };
const limits: RenderLimits = { ...limitsOf(device), ...FORCE };

function values(n: number, seed: number): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround((s / 2 ** 32) * 4 - 2);
  });
}

// A gradient-like program: reductions of several lengths, small elementwise tails, a scatter, all
// reading the same data, some depending on others.
function program(dtype: "f32" | "f64" = "f32") {
  const x = data("x", [4, 3000], dtype);
  const v = data("v", [4], dtype);
  const g = data("g", [3000], "i32");
  const a = sum(exp(mul(x, 0.25)), [1]);
  const b = max(x, [1]);
  const c = logsumexp(add(x, reshape(v, [4, 1])), [1]);
  const d = scatterAdd(mul(x, 2), g, 1, 50);
  const e = add(mul(a, b), sum(d, [1]));
  const f = sum(mul(gather(d, g, 1), x), [1]);
  return { outputs: [a, b, c, e, f, exp(v)], bindings: { x: values(12_000, 1), v: values(4, 2), g: Float64Array.from({ length: 3000 }, (_, i) => (i * 7) % 50) } };
}

describe("merged kernels", () => {
  it("run in as many dispatches as the program has dependency levels, every kernel once", () => {
    const { outputs } = program();
    const separate = planProgram(outputs, limits, kernelPrelude);
    const merged = planProgram(outputs, limits, kernelPrelude, { merge: true });
    const depth = Math.max(...dependencyLevels(separate.kernels)) + 1;
    expect(separate.kernels.length).toBeGreaterThan(depth);
    // One merged kernel per level and workgroup size (the simple kernels join a larger size).
    const sizes = new Set(separate.kernels.map((k) => k.localSize)).size;
    expect(merged.kernels.length).toBeGreaterThanOrEqual(depth);
    expect(merged.kernels.length).toBeLessThanOrEqual(depth * sizes);
    expect(merged.kernels.length).toBeLessThan(separate.kernels.length);
    // Levels of the merged program ascend: no kernel runs before one it reads from.
    const levels = dependencyLevels(merged.kernels);
    levels.forEach((l, i) => expect(l).toBeLessThanOrEqual(i));
    // Every kernel of the separate plan is in the merged one once (a node of several passes in
    // several; sums over the same elements are one kernel of several nodes in both).
    const hashes = (ns: readonly Node[]) => ns.map((n) => n.hash).sort();
    expect(hashes(merged.kernels.flatMap((k) => k.nodes))).toEqual(hashes(separate.kernels.flatMap((k) => k.nodes)));
  });

  it("keeps apart the kernels a group key separates, and orders each group by itself", () => {
    const { outputs } = program();
    const readsV = (n: Node): boolean => n.op === "data" ? n.attrs.name === "v" : n.inputs.some(readsV);
    const merged = planProgram(outputs, limits, kernelPrelude, { merge: (n) => (readsV(n) ? "v" : "x") });
    for (const k of merged.kernels) expect(new Set(k.nodes.map(readsV)).size).toBe(1);
  });

  it("keeps every merged kernel within the device's storage buffers per shader", async () => {
    const { outputs, bindings } = program();
    const few: Partial<RenderLimits> = { ...FORCE, maxStorageBuffers: 4 };
    const merged = planProgram(outputs, { ...limits, ...few }, kernelPrelude, { merge: true });
    // A kernel alone may need more (it is the device's limit that refuses it); merging never adds past it.
    for (const k of merged.kernels) if (k.nodes.length > 1) expect(k.bindings.length).toBeLessThanOrEqual(4);
    expect(merged.kernels.some((k) => k.nodes.length > 1)).toBe(true);
    expect(merged.kernels.length).toBeGreaterThan(planProgram(outputs, limits, kernelPrelude, { merge: true }).kernels.length);
    const one = await vulkanBackend({ limits: FORCE, merge: false });
    const all = await vulkanBackend({ limits: few, merge: true });
    const a = await (await one.compile(outputs)).run(bindings);
    const b = await (await all.compile(outputs)).run(bindings);
    a.forEach((t, i) => expect(Array.from(b[i]!.data)).toEqual(Array.from(t.data)));
  }, 120_000);

  it("gives bit-identical results to one kernel per node on the device, f32 and f64", async () => {
    const dtypes = device.features.shaderFloat64 ? (["f32", "f64"] as const) : (["f32"] as const);
    const one = await vulkanBackend({ limits: FORCE, merge: false });
    const all = await vulkanBackend({ limits: FORCE, merge: true });
    for (const dtype of dtypes) {
      const { outputs, bindings } = program(dtype);
      const a = await (await one.compile(outputs)).run(bindings);
      const b = await (await all.compile(outputs)).run(bindings);
      a.forEach((t, i) => expect(Array.from(b[i]!.data)).toEqual(Array.from(t.data)));
    }
  }, 120_000);

  it("renames a shared array that two merged kernels declare differently (f32 and f64 reductions side by side)", async () => {
    if (!device.features.shaderFloat64) return expect(device.features.shaderFloat64).toBe(false);
    const x = data("x", [2, 5000], "f32");
    const outputs = [sum(x, [1]), sum(cast(x, "f64"), [1])];
    const merged = planProgram(outputs, limits, kernelPrelude, { merge: true });
    const first = merged.kernels[0]!.source;
    expect(first).toMatch(/shared float ppl_sh0\[/);
    expect(first).toMatch(/shared double ppl_sh0_k\d+\[/);
    const bindings = { x: values(10_000, 3) };
    const one = await vulkanBackend({ limits: FORCE, merge: false });
    const all = await vulkanBackend({ limits: FORCE, merge: true });
    const a = await (await one.compile(outputs)).run(bindings);
    const b = await (await all.compile(outputs)).run(bindings);
    a.forEach((t, i) => expect(Array.from(b[i]!.data)).toEqual(Array.from(t.data)));
  }, 120_000);

  it("property: random sets of independent reductions and maps merge to the same values", async () => {
    const one = await vulkanBackend({ limits: FORCE, merge: false });
    const all = await vulkanBackend({ limits: FORCE, merge: true });
    const x = data("x", [3, 700], "f32");
    const pieces: ((x: Node) => Node)[] = [
      (x) => sum(x, [1]),
      (x) => max(mul(x, -1), [1]),
      (x) => logsumexp(x, [0]),
      (x) => exp(mul(x, 0.5)),
      (x) => sum(sum(x, [1]), [0]),
      (x) => add(sum(x, [0]), 1),
    ];
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 0, max: pieces.length - 1 }), { minLength: 2, maxLength: 4 }), fc.integer({ min: 1, max: 1000 }), async (pick, seed) => {
        const outputs = pick.map((i) => pieces[i]!(x));
        const bindings = { x: values(2100, seed) };
        const a = await (await one.compile(outputs)).run(bindings);
        const b = await (await all.compile(outputs)).run(bindings);
        a.forEach((t, i) => expect(Array.from(b[i]!.data)).toEqual(Array.from(t.data)));
      }),
      { numRuns: 8, seed: 11 },
    );
  }, 300_000);
});
