import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { add, concat, data, exp, gather, gt, interpret, matmul, mul, pad, select, sum, transpose, type Node } from "@ppl/tensor";
import { checkConformanceCase, conformanceCases } from "@ppl/tensor/testing";
import { vulkanBackend } from "../src/backend.ts";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { limitsOf, type RenderLimits } from "../src/codegen/limits.ts";
import { planProgram } from "../src/codegen/program.ts";
import { usableDevices } from "../src/devices.ts";

// Elementwise kernels with several units per thread (all loads first): when they are chosen, the
// shape of their source, and their results against the reference interpreter with limits that
// force them onto lavapipe (whose own limits keep one unit per thread).
const device = usableDevices()[0];

const GPU = limitsOf({
  type: "discrete-gpu",
  driver: "nvidia",
  limits: { maxComputeWorkGroupInvocations: 1024, maxComputeWorkGroupCount: [2 ** 31 - 1, 65535, 65535], maxComputeWorkGroupSize: [1024, 1024, 64], maxComputeSharedMemorySize: 49152 },
  features: { shaderFloat64: true },
});
const sources = (outs: Node[], limits: RenderLimits) => planProgram(outs, limits, kernelPrelude).kernels.map((k) => k.source);

// The statements of main() after the unit indices: every buffer read must come before the first other statement.
function loadsFirst(source: string): { loads: number; readsAfterCompute: number } {
  const body = source.slice(source.indexOf("void main()")).split("\n").filter((l) => /^\s+\w/.test(l) && !/int (gid|u\d+) =|return;/.test(l));
  const isLoad = (l: string) => /^\s+\w+ ld\d+ = /.test(l);
  const firstOther = body.findIndex((l) => !isLoad(l));
  const after = firstOther < 0 ? [] : body.slice(firstOther);
  return { loads: body.filter(isLoad).length, readsAfterCompute: after.filter((l) => /= .*b\d+\.v\[/.test(l)).length };
}

describe("multi-unit elementwise kernels: planning", () => {
  const n = 1 << 24;
  const [a, b, c, d] = ["a", "b", "c", "d"].map((name) => data(name, [n], "f32")) as [Node, Node, Node, Node];
  const y = add(mul(a, exp(b)), mul(c, d));

  it("streams y = a·exp(b) + c·d over 16M elements as 2 units per thread in 256-thread workgroups, loads first", () => {
    const plan = planProgram([y], GPU, kernelPrelude);
    expect(plan.kernels.length).toBe(1);
    const k = plan.kernels[0]!;
    expect(k.source).toContain("2 units per thread, loads first");
    expect(k.localSize).toBe(256);
    expect(k.groups).toEqual([n / 512, 1]);
    expect(loadsFirst(k.source)).toEqual({ loads: 8, readsAfterCompute: 0 });
  });

  it("declares inputs readonly restrict and the output writeonly restrict", () => {
    const src = sources([y], GPU)[0]!;
    expect(src.match(/readonly restrict buffer/g)?.length).toBe(4);
    expect(src.match(/writeonly restrict buffer/g)?.length).toBe(1);
  });

  it("keeps one unit per thread for small kernels, CPU drivers, gathers and reductions", () => {
    const small = data("s", [1000], "f32");
    expect(sources([exp(small)], GPU)[0]).not.toContain("units per thread");
    expect(sources([y], { ...GPU, unitsPerThread: 1 })[0]).not.toContain("units per thread");
    const idx = data("i", [n], "i32");
    // The gathered value's address is a loaded index: its load cannot be issued first.
    expect(sources([mul(gather(a, idx, 0), 2)], GPU)[0]).not.toContain("units per thread");
    expect(sources([sum(mul(a, b))], GPU).join()).not.toContain("units per thread");
  });
});

// Tiny streaming workgroups and one busy group, so that a few dozen elements already take the path.
const FORCED = { unitsPerThread: 3, streamLocalSize: 4, busyGroups: 1 } as const;

describe.runIf(device !== undefined)("multi-unit elementwise kernels against the reference", async () => {
  const base = limitsOf(device!);

  it("random sizes, units per thread and workgroup sizes, with broadcasting, movement ops and bool outputs", async () => {
    const backends = new Map<string, Awaited<ReturnType<typeof vulkanBackend>>>();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 70 }),
        fc.integer({ min: 2, max: 4 }),
        fc.constantFrom(1, 4, 32),
        async (rows, cols, perThread, local) => {
          const limits = { unitsPerThread: perThread, streamLocalSize: local, busyGroups: 1 };
          const key = JSON.stringify(limits);
          if (!backends.has(key)) backends.set(key, await vulkanBackend({ limits }));
          const a = data("a", [rows, cols], "f32"), b = data("b", [1, cols], "f32"), c = data("c", [cols, rows], "f32");
          // Broadcast b, a transposed read of c, a pad and a concat (clamped reads), a select on a comparison.
          const t = add(mul(a, exp(b)), transpose(c, [1, 0]));
          const padded = pad(t, [[0, 0], [1, 2]], 0.5);
          const wide = concat([padded, mul(a, 3)], 1);
          const outs = [select(gt(wide, 0), wide, mul(wide, -1)), gt(a, b)];
          // Every kernel large enough takes the multi-unit path (a broadcast exp(b) gets a small kernel of its own).
          for (const k of planProgram(outs, { ...base, ...limits }, kernelPrelude).kernels) {
            expect(k.source.includes(`${perThread} units per thread`)).toBe(k.node.size >= local * perThread);
          }
          const bindings = { a: values(rows * cols, 1), b: values(cols, 2), c: values(rows * cols, 3) };
          const exe = await backends.get(key)!.compile(outs);
          const got = await exe.run(bindings);
          exe.dispose?.();
          const want = interpret(outs, bindings);
          got.forEach((g, j) => g.data.forEach((v, i) => {
            const w = want[j]!.data[i]!;
            if (!(Math.abs(v - w) <= 1e-6 * Math.abs(w) + 1e-6)) expect.fail(`output ${j} element ${i}: got ${v}, want ${w}`);
          }));
        },
      ),
      { numRuns: 12, seed: 20251201 },
    );
  });

  it("a matmul's consumer streams while the matmul keeps its own kernel", async () => {
    const backend = await vulkanBackend({ limits: FORCED });
    const A = data("A", [30, 7], "f32"), B = data("B", [7, 5], "f32");
    const out = add(mul(matmul(A, B), 2), 1);
    expect(sources([out], { ...base, ...FORCED }).filter((s) => s.includes("3 units per thread")).length).toBe(1);
    const bindings = { A: values(210, 4), B: values(35, 5) };
    const exe = await backend.compile([out]);
    const [got] = await exe.run(bindings);
    exe.dispose?.();
    const [want] = interpret([out], bindings);
    got!.data.forEach((v, i) => expect(Math.abs(v - want!.data[i]!)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(want!.data[i]!))));
  });

  // The conformance cases whose kernels are elementwise (maps, movement, gathers, fusions), f32,
  // with every elementwise kernel of a dozen elements or more on the multi-unit path.
  const cases = conformanceCases().filter((c) => /^(unary|binary|compare|select|cast|polygamma|reshape|broadcast_to|transpose|slice|concat|pad|gather|fusion)/.test(c.name));
  describe("conformance cases, multi-unit kernels forced", async () => {
    const forced = await vulkanBackend({ limits: FORCED });
    for (const c of cases) {
      it(c.name, async () => {
        await checkConformanceCase(forced, c, { dtype: "f32", numRuns: 2, seed: 13 });
      });
    }
  });
});

/** Deterministic values in [-2, 2), exact in f32. */
function values(n: number, seed: number): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround((s / 2 ** 32) * 4 - 2);
  });
}
