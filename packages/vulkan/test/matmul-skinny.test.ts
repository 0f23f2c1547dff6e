import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  add, data, grad, interpret, matmul, mT, mul, neg, param, softplus, square, sub, sum, vmap, type Node,
} from "@ppl/tensor";
import { optimize } from "@ppl/tensor/internals";
import { checkConformanceCase, conformanceCases, type FloatDType } from "@ppl/tensor/testing";
import { vulkanBackend } from "../src/backend.ts";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { limitsOf, type RenderLimits } from "../src/codegen/limits.ts";
import { planProgram } from "../src/codegen/program.ts";
import { mergesInLastSlice } from "../src/codegen/slice-sum.ts";
import { matmulKernel } from "../src/codegen/strategy.ts";

/** The k-slices a matmul kernel's title names. */
const splitsOf = (source: string) => Number(/(\d+) k-slices/.exec(source)![1]);
import { usableDevices } from "../src/devices.ts";
import { checkMatmul, matmulValues } from "./matmul-check.ts";

// The skinny matmul kernels (few output columns: one thread per output row, slots splitting k,
// k-slices merged by a second pass): which shapes take them, and their results against the
// reference interpreter on random shapes, with limits that force them onto lavapipe's small inputs.
const device = usableDevices()[0];
const DTYPES: readonly FloatDType[] = device?.features.shaderFloat64 ? ["f32", "f64"] : ["f32"];

// A discrete GPU as limitsOf sees it (an H200's reported limits): planning needs no device.
const GPU = limitsOf({
  type: "discrete-gpu",
  driver: "nvidia",
  limits: { maxComputeWorkGroupInvocations: 1024, maxComputeWorkGroupCount: [2 ** 31 - 1, 65535, 65535], maxComputeWorkGroupSize: [1024, 1024, 64], maxComputeSharedMemorySize: 49152 },
  features: { shaderFloat64: true },
  subgroup: { operations: ["basic", "vote", "arithmetic"], inCompute: true },
});
const plan = (outs: Node[], limits: RenderLimits) => planProgram(outs, limits, kernelPrelude);
const titles = (outs: Node[], limits: RenderLimits) => plan(outs, limits).kernels.map((k) => k.source.split("\n")[1]!);

describe("skinny matmul strategy", () => {
  const N = 100_000, D = 100, C = 4;
  const X = data("X", [N, D], "f32"), B = data("B", [D, C], "f32"), R = data("R", [N, C], "f32");

  it("runs X·B as one thread per row (256 rows, one slot, blocks of 8 terms of X's tile and B staged in shared memory), no k-split", () => {
    const p = plan([matmul(X, B)], GPU);
    expect(p.kernels.length).toBe(1);
    expect(p.kernels[0]!.source).toContain("skinny matmul, 256 rows x 1 slots per workgroup, 1 k-slices");
    expect(p.kernels[0]!.source).toContain("shared float ppl_Bs[32]");
    // 256 rows of 8 terms, each row padded by one so that the threads' rows fall in different banks.
    expect(p.kernels[0]!.source).toContain("shared float ppl_As[2304]");
    expect(p.kernels[0]!.groups).toEqual([Math.ceil(N / 256), 1]);
  });

  it("stages A's tile only when A is contiguous along k: stored, or elementwise over stored values; not a transpose", () => {
    const staged = (a: Node, b: Node) => plan([matmul(a, b)], GPU).kernels[0]!.source.includes("ppl_As[");
    expect(staged(X, B)).toBe(true);
    expect(staged(add(mul(X, 0.5), data("s", [N, 1], "f32")), B)).toBe(true); // a column broadcast along k stays contiguous
    expect(staged(mT(data("Xt", [D, N], "f32")), B)).toBe(false); // read with consecutive threads on consecutive addresses already
    // Blocks of up to limits.skinnyStageA terms that fit three quarters of shared memory; 0 turns staging off.
    const X64 = data("X", [N, D], "f64"), B64 = data("B", [D, C], "f64");
    expect(plan([matmul(X64, B64)], { ...GPU, skinnyStageA: 32, sharedMemoryBytes: 49152 }).kernels[0]!.source).toContain(`shared double ppl_As[${256 * 17}]`);
    expect(plan([matmul(X, B)], { ...GPU, skinnyStageA: 32 }).kernels[0]!.source).toContain(`shared float ppl_As[${256 * 33}]`);
    expect(plan([matmul(X, B)], { ...GPU, skinnyStageA: 0 }).kernels[0]!.source).not.toContain("ppl_As[");
  });

  it("runs Xᵀ·R as row slots (2 slots of 100 threads) over about busyGroups/2 k-slices, then a merge pass (too many partials per thread for the last slice)", () => {
    const p = plan([matmul(mT(X), R)], GPU);
    expect(p.kernels.length).toBe(2);
    const slices = Number(/(\d+) k-slices/.exec(p.kernels[0]!.source)![1]);
    expect(p.kernels[0]!.source).toContain("100 rows x 2 slots per workgroup");
    expect(p.kernels[0]!.localSize).toBe(200);
    expect(slices).toBeGreaterThan(GPU.busyGroups / 4);
    expect(slices).toBeLessThanOrEqual(GPU.busyGroups / 2);
    expect(p.kernels[1]!.source).toContain(`sum of ${slices} k-slices`);
    expect(mergesInLastSlice(slices, 4 * slices)).toBe(false);
    // The slice count follows the limits, not this device.
    const half = plan([matmul(mT(X), R)], { ...GPU, busyGroups: GPU.busyGroups / 2 });
    expect(Number(/(\d+) k-slices/.exec(half.kernels[0]!.source)![1])).toBeLessThanOrEqual(GPU.busyGroups / 4);
  });

  // With row passes off (limits.rowPassTeams 0): with them, row-pass.test.ts, one kernel takes both.
  it("takes both matmuls of a vmapped logistic-regression gradient", () => {
    const x = data("X", [N, D], "f32"), y = data("y", [N], "f32"), beta = param("beta", [D], "f32");
    const eta = matmul(x, beta);
    const lp = add(sum(sub(mul(y, eta), softplus(eta))), sum(mul(-0.5, square(beta))));
    const outs = optimize(vmap(optimize([lp, ...grad(lp, [beta])]), { params: ["beta"], size: C }));
    const matmuls = titles(outs, { ...GPU, rowPassTeams: 0 }).filter((t) => t.includes("kernel for matmul"));
    expect(matmuls.filter((t) => t.includes("skinny matmul")).length).toBe(2);
    expect(matmuls.filter((t) => t.includes("tiled")).length).toBe(0);
  });

  it("leaves wide outputs and short batched products to the tiled kernel, small ones to one thread per output", () => {
    expect(matmulKernel(2000, 64, 2000, 2000 * 64, GPU)).toBe("tiled");
    expect(matmulKernel(2000, 16, 2000, 2000 * 16, GPU)).toBe("skinny");
    expect(matmulKernel(8, 8, 8, 1000 * 64, GPU)).toBe("tiled"); // 1000 batches of 8x8: 32 slots, k = 8
    expect(matmulKernel(10, 4, 10, 40, GPU)).toBe("units");
    expect(matmulKernel(N, C, D, N * C, { ...GPU, skinnyMatmulColumns: 0 })).toBe("tiled");
  });

  it("splits k so one thread stays within the loop budget (lavapipe ends loops after 65535 iterations)", () => {
    const few = { ...GPU, busyGroups: 2, maxLoopIterations: 4000 };
    const p = plan([matmul(mT(X), R)], few);
    const slices = Number(/(\d+) k-slices/.exec(p.kernels[0]!.source)![1]);
    const perThread = Math.ceil(N / slices / 2); // two slots
    expect(perThread).toBeLessThanOrEqual(few.maxLoopIterations / 2);
    const rows = plan([matmul(X, B)], { ...few, maxLoopIterations: 100 });
    const split = splitsOf(rows.kernels[0]!.source);
    expect(split).toBeGreaterThan(1);
    expect(rows.kernels.length).toBe(mergesInLastSlice(split, B.shape[1]! * split) ? 1 : 2);
  });

  it("merges few k-slices in the tile's last slice, in the same dispatch", () => {
    // 8 slices of a 4-column product: 32 partials per merging thread would be too many; 2 slices of 4 are not.
    expect(mergesInLastSlice(2, 8)).toBe(true);
    expect(mergesInLastSlice(8, 32)).toBe(false);
    const p = plan([matmul(mT(X), R)], { ...GPU, busyGroups: 4 });
    const slices = splitsOf(p.kernels[0]!.source);
    expect(slices).toBe(2);
    expect(p.kernels.length).toBe(1);
    expect(p.kernels[0]!.source).toContain("the last merges them");
    expect(p.kernels[0]!.source).toContain("if (ppl_done != 1) return;");
  });

  it.runIf(usableDevices()[0] !== undefined)("the last slice's merge gives the reference values on the device", async () => {
    const n = 6000, d = 10, c = 4;
    const Xs = data("X", [n, d], "f32"), Rs = data("R", [n, c], "f32");
    const out = matmul(mT(Xs), Rs);
    const forced: Partial<RenderLimits> = { busyGroups: 4, skinnyMatmulColumns: 16, tiledMatmulMin: 1 };
    const device = usableDevices()[0]!;
    const p = plan([out], { ...limitsOf(device), ...forced });
    expect(p.kernels[0]!.source).toContain("skinny matmul");
    expect(p.kernels[0]!.source).toContain("the last merges them");
    await checkMatmul(await vulkanBackend({ limits: forced }), out, { X: [n, d], R: [n, c] }, "f32", n);
  });
});

// Limits that send small products to the skinny kernels on lavapipe: tiny workgroups (so small n
// already fills a row tile, and k need not be long for several slots), few busy groups or many.
const FORCED: readonly Partial<RenderLimits>[] = [
  { tiledMatmulMin: 0, groupSize: 32, busyGroups: 8 },
  { tiledMatmulMin: 0, groupSize: 64, busyGroups: 64, sharedMemoryBytes: 1024 }, // B staged in small blocks, merges in rounds
  { tiledMatmulMin: 0, groupSize: 16, busyGroups: 1, maxLoopIterations: 600 }, // splits forced by the loop budget
];

// Shapes the strategy sends to the skinny kernels under FORCED[limits]: either more rows than half
// a workgroup (one slot), or fewer with k long enough for every slot.
function caseArb() {
  return fc
    .record({
      limits: fc.integer({ min: 0, max: FORCED.length - 1 }),
      rowsMode: fc.boolean(),
      batch: fc.constantFrom<readonly [readonly number[], readonly number[]]>([[], []], [[3], []], [[], [2]], [[2], [2]], [[2, 1], [3]], [[1], [2]]),
      m: fc.integer({ min: 1, max: 16 }),
      transA: fc.boolean(),
      transB: fc.boolean(),
      fuse: fc.boolean(),
      a: fc.integer({ min: 0, max: 1000 }),
      b: fc.integer({ min: 0, max: 1000 }),
    })
    .map(({ limits, rowsMode, batch, m, transA, transB, fuse, a, b }) => {
      const G = FORCED[limits]!.groupSize!;
      // Rows mode: n in (G/2, 12·G], k in [1, 150]; slots mode: n in [1, G/2], k ≥ slots·32.
      const n = rowsMode ? G / 2 + 1 + (a % (12 * G)) : 1 + (a % (G / 2));
      const slots = Math.floor(G / n);
      const k = rowsMode ? 1 + (b % 150) : slots * 32 + (b % 400);
      return { batchA: batch[0], batchB: batch[1], n, k, m, transA, transB, fuse, limits };
    });
}

describe.runIf(device !== undefined)("skinny matmul kernels against the reference", async () => {
  const backends = await Promise.all(FORCED.map((limits) => vulkanBackend({ limits })));
  const forcedLimits = FORCED.map((l) => ({ ...limitsOf(device!), ...l }));

  for (const dtype of DTYPES) {
    it(`random shapes, batches, transposed operands and fused producers, ${dtype}`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArb(), async (c) => {
          const { n, k, m } = c;
          const shapeA = [...c.batchA, ...(c.transA ? [k, n] : [n, k])];
          const shapeB = [...c.batchB, ...(c.transB ? [m, k] : [k, m])];
          let A: Node = data("A", shapeA, dtype), B: Node = data("B", shapeB, dtype);
          if (c.transA) A = mT(A);
          if (c.transB) B = mT(B);
          // Cheap producers stay fused into the matmul's kernel (no kernel of their own).
          if (c.fuse) {
            A = add(mul(A, 0.5), 0.25);
            B = neg(B);
          }
          const out = matmul(A, B);
          const limits = forcedLimits[c.limits]!;
          expect(matmulKernel(n, m, k, out.size, limits)).toBe("skinny");
          const kernels = plan([out], limits).kernels;
          expect(kernels[0]!.source).toContain("skinny matmul");
          // Producers fused; k-slices merged by the last slice, or by a merge pass when each thread would read many partials.
          expect(kernels.length).toBe(kernels[0]!.source.includes("the last merges them") || splitsOf(kernels[0]!.source) === 1 ? 1 : 2);
          await checkMatmul(backends[c.limits]!, out, { A: shapeA, B: shapeB }, dtype, k);
        }),
        { numRuns: 14, seed: 20251201 },
      );
    });
  }

  it("a staged tile of A gives the reference values: partial last blocks, rows past n, fused producers", async () => {
    const backend = backends[0]!; // 32 rows a workgroup: A's tile staged in blocks of 8 terms
    for (const dtype of DTYPES) {
      for (const [n, k, m] of [[70, 77, 3], [33, 8, 1], [200, 1000, 4]] as const) {
        const A = data("A", [n, k], dtype), Bm = data("B", [k, m], dtype);
        const out = matmul(add(mul(A, 0.5), 0.25), Bm);
        expect(plan([out], forcedLimits[0]!).kernels[0]!.source).toContain("ppl_As[");
        await checkMatmul(backend, out, { A: [n, k], B: [k, m] }, dtype, k);
      }
    }
  });

  it("a merge pass of many k-slices, several threads an output in a fixed tree, gives the reference values", async () => {
    const limits = { tiledMatmulMin: 0, groupSize: 64, busyGroups: 1024 };
    const backend = await vulkanBackend({ limits });
    for (const dtype of DTYPES) {
      const n = 20, k = 30000, m = 3;
      const Xt = data("X", [k, n], dtype), R = data("R", [k, m], dtype);
      const out = matmul(mT(Xt), R);
      const kernels = plan([out], { ...limitsOf(device!), ...limits }).kernels;
      const slices = splitsOf(kernels[0]!.source);
      expect(slices).toBeGreaterThanOrEqual(256);
      expect(kernels[1]!.source).toContain(`sum of ${slices} k-slices, 32 threads an output`);
      await checkMatmul(backend, out, { X: [k, n], R: [k, m] }, dtype, k);
    }
  });

  it("k = 0 gives zeros; a single row and a single column", async () => {
    const backend = backends[0]!;
    const A0 = data("A", [40, 0], "f32"), B0 = data("B", [0, 3], "f32");
    await checkMatmul(backend, matmul(A0, B0), { A: [40, 0], B: [0, 3] }, "f32", 1);
    const a = data("A", [1, 2000], "f32"), b = data("B", [2000, 1], "f32");
    await checkMatmul(backend, matmul(a, b), { A: [1, 2000], B: [2000, 1] }, "f32", 2000);
  });

  it("stays within lavapipe's real loop limit by splitting k (a wrong count would silently truncate the sums)", async () => {
    // busyGroups 2: no split is wanted for filling the device, only for the loop budget.
    const limits = { tiledMatmulMin: 0, groupSize: 4, busyGroups: 2 };
    const backend = await vulkanBackend({ limits });
    const full = { ...limitsOf(device!), ...limits };
    // Slots: 1 row, 4 slots, 300k terms (75k per thread unsplit). Rows: 3 rows, one slot, 100k terms.
    for (const [n, k, m] of [[1, 300_000, 2], [3, 100_000, 2]] as const) {
      const A = data("A", [n, k], "f32"), B = data("B", [k, m], "f32");
      const out = matmul(A, B);
      expect(plan([out], full).kernels[0]!.source).toMatch(/skinny matmul.*[2-9] k-slices/);
      await checkMatmul(backend, out, { A: [n, k], B: [k, m] }, "f32", k);
    }
  });

  it("the vmapped logistic-regression gradient (4 chains) matches the reference", async () => {
    const N = 3000, D = 10, C = 4;
    const x = data("X", [N, D], "f32"), y = data("y", [N], "f32"), beta = param("beta", [D], "f32");
    const eta = matmul(x, beta);
    const lp = add(sum(sub(mul(y, eta), softplus(eta))), sum(mul(-0.5, square(beta))));
    const outs = optimize(vmap(optimize([lp, ...grad(lp, [beta])]), { params: ["beta"], size: C }));
    const limits = { tiledMatmulMin: 0, busyGroups: 8, rowPassTeams: 0 };
    const backend = await vulkanBackend({ limits });
    expect(titles(outs, { ...limitsOf(device!), ...limits }).filter((t) => t.includes("skinny matmul")).length).toBe(2);
    const bindings = { X: matmulValues(N * D, 3), y: Float64Array.from(matmulValues(N, 4), (v) => (v > 0 ? 1 : 0)), beta: matmulValues(C * D, 5) };
    const exe = await backend.compile(outs);
    const got = await exe.run(bindings);
    exe.dispose?.();
    const want = interpret(outs, bindings);
    got.forEach((g, j) => {
      // Sums over N terms of size ≤ ~4 in f32.
      g.data.forEach((v, i) => expect(Math.abs(v - want[j]!.data[i]!)).toBeLessThanOrEqual(1e-5 * N * 4));
    });
  });

  // The conformance matmul case with the skinny kernels forced (rows of 3 to 5 take them here).
  const conformance = conformanceCases().filter((c) => c.name.startsWith("matmul"));
  for (const dtype of DTYPES) {
    for (const c of conformance) {
      it(`${c.name} with skinny kernels forced, ${dtype}`, async () => {
        const forced = await vulkanBackend({ limits: { tiledMatmulMin: 0, groupSize: 4, busyGroups: 64 } });
        await checkConformanceCase(forced, c, { dtype, numRuns: 6, seed: 5 });
      });
    }
  }
});
