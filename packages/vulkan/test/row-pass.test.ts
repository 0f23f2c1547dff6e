import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { add, data, exp, grad, interpret, matmul, mul, param, softplus, square, sub, sum, vmap, type DType, type Node } from "@ppl/tensor";
import { optimize } from "@ppl/tensor/internals";
import { vulkanBackend } from "../src/backend.ts";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { limitsOf, type RenderLimits } from "../src/codegen/limits.ts";
import { planProgram } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { findRowPasses, rowPassLayout } from "../src/codegen/row-pass.ts";
import { WIDE_PARTIALS, wideRowPassLayout } from "../src/codegen/row-pass-wide.ts";
import { schedule } from "../src/codegen/schedule.ts";
import { usableDevices } from "../src/devices.ts";
import { matmulValues } from "./matmul-check.ts";
import { slicedReads } from "./helpers.ts";

// The row pass (row-pass.ts): a regression's η = X·B, its rows' terms, their sums and Xᵀ·R in one
// kernel that reads X once. Which graphs take it, and its results against the reference
// interpreter on lavapipe, on random shapes, with rows that do not fill the last block.
const device = usableDevices()[0];
const GPU = REFERENCE_LIMITS.h200;
const plan = (outs: Node[], limits: RenderLimits) => planProgram(outs, limits, kernelPrelude);
const titles = (outs: Node[], limits: RenderLimits) => plan(outs, limits).kernels.map((k) => k.source.split("\n").slice(1, 8).join("\n"));

type Family = "logistic" | "normal";

/** lp and its gradient in β of a regression over X [N, K], vmapped over C chains; also η itself when `withEta`. */
function regression(family: Family, N: number, K: number, C: number, dtype: DType = "f32", withEta = false) {
  const x = data("X", [N, K], dtype), y = data("y", [N], dtype), beta = param("beta", [K], dtype);
  const eta = matmul(x, beta);
  const lik = family === "logistic" ? sub(mul(y, eta), softplus(eta)) : mul(-0.5, square(sub(y, eta)));
  const lp = add(sum(lik), sum(mul(-0.5, square(beta))));
  const outs = optimize(vmap(optimize([lp, ...grad(lp, [beta]), ...(withEta ? [exp(eta)] : [])]), { params: ["beta"], size: C }));
  const bindings = {
    X: matmulValues(N * K, 3),
    y: family === "logistic" ? Float64Array.from(matmulValues(N, 4), (v) => (v > 0 ? 1 : 0)) : matmulValues(N, 4),
    beta: Float64Array.from(matmulValues(C * K, 5), (v) => v * 0.3),
  };
  return { outs, bindings };
}

/** The row pass of a regression's graph under `limits` (wide where C > limits.skinnyMatmulColumns). */
function passOf(outs: Node[], limits: RenderLimits) {
  const s = schedule(outs, { recomputeBudget: limits.recomputeBudget });
  const [pass] = findRowPasses(s.order, outs, s.kernels, s.isStored, limits);
  return pass!;
}

describe("row passes: which graphs take them", () => {
  it("the vmapped logistic gradient over N=100k, D=100 reads X in one kernel, with no matmul kernels", () => {
    const { outs } = regression("logistic", 100_000, 100, 4);
    const p = plan(outs, GPU);
    const X = p.buffers.find((n) => n.op === "data" && n.attrs.name === "X")!;
    expect(p.kernels.filter((k) => k.bindings.includes(X)).length).toBe(1);
    const all = titles(outs, GPU).join("\n");
    expect(all).toMatch(/row pass over X \[100000,100\], 4 teams of 32 lanes \(subgroup shuffles\) x 8 rows a step.*1 row sum, 1 product with Xᵀ/);
    expect(all).not.toContain("skinny matmul");
    // The pass, the merges of its partials (one dispatch), and the final sums.
    expect(planProgram(outs, GPU, kernelPrelude, { merge: true }).kernels.length).toBeLessThanOrEqual(3);
  });

  it("golden: the logistic gradient's row pass and its merges (H200 limits)", async () => {
    const { outs } = regression("logistic", 100_000, 100, 4);
    // The math prelude (golden-tested with the shaders) stands as one line here.
    const prelude = (dtypes: ReadonlySet<string>) => `// (math prelude: ${[...dtypes].join(", ")})`;
    const source = planProgram(outs, GPU, prelude).kernels.filter((k) => /row pass|k-slices/.test(k.source)).map((k) => k.source).join("\n// ----\n");
    await expect(source).toMatchFileSnapshot("./__snapshots__/row-pass-logistic.glsl");
  });

  it("1024 chains of a small regression take the wide pass (a thread a chain), 2 dispatches; golden", async () => {
    const { outs } = regression("logistic", 1000, 10, 1024);
    const p = planProgram(outs, GPU, kernelPrelude, { merge: true });
    const X = p.buffers.find((n) => n.op === "data" && n.attrs.name === "X")!;
    expect(p.kernels.filter((k) => k.bindings.includes(X)).length).toBe(1);
    // The pass, then lp and the gradient, which add the pass's 16 partials of each sum they read
    // themselves (inline-slices.ts): no merge kernel and no buffer for the sums.
    expect(p.kernels.length).toBe(2);
    expect(p.kernels.map((k) => k.source).join("\n")).not.toMatch(/sum of \d+ k-slices/);
    expect(slicedReads(p.kernels[1]!.source).length).toBeGreaterThan(0);
    expect(slicedReads(p.kernels[1]!.source).every((q) => q === 16)).toBe(true);
    expect(p.kernels[1]!.source).toMatch(/ppl_sl\d+_15 = b\d\.v\[153600 \+ ppl_sl\d+_at\]/);
    expect(p.buffers.some((n) => n.op === "matmul")).toBe(false);
    expect(p.scratch.map((b) => b.label)).toEqual(Array(2).fill("16 partial products per output"));
    const all = titles(outs, GPU).join("\n");
    expect(all).toMatch(/wide row pass over X \[1000,10\] and 1024 columns.*1 row sum, 1 product with Xᵀ/);
    expect(all).not.toMatch(/tiled matmul|skinny matmul/);
    const prelude = (dtypes: ReadonlySet<string>) => `// (math prelude: ${[...dtypes].join(", ")})`;
    const source = planProgram(outs, GPU, prelude).kernels.filter((k) => /row pass/.test(k.source)).map((k) => k.source).join("\n// ----\n");
    await expect(source).toMatchFileSnapshot("./__snapshots__/row-pass-wide-logistic.glsl");
  });

  it("the wide pass stages its chunk's rows of X in shared memory where they fit", () => {
    const wide = (N: number, limits: RenderLimits) => planProgram(regression("logistic", N, 10, 1024).outs, limits, kernelPrelude).kernels.map((k) => k.source).find((s) => /wide row pass/.test(s))!;
    // H200: 4 chunks of 16 rows a workgroup, 640 terms; two workgroups' chunks of 50,000 rows would not fit.
    expect(wide(1000, GPU)).toMatch(/shared float ppl_xs\[640\];[^]*ppl_xs\[\(n - wg \* 64\) \* 10 \+ 9\]/);
    const big = wide(100_000, { ...GPU, busyGroups: 32 });
    expect(big).toContain("wide row pass");
    expect(big).not.toContain("ppl_xs");
  });

  it("the wide pass of 1024 chains (H200) adds 4 chunks a workgroup in shared memory: 16 partials for its readers, its threads kept", () => {
    const { outs } = regression("logistic", 1000, 10, 1024);
    const layout = wideRowPassLayout(passOf(outs, GPU), GPU);
    expect(layout.partials).toBeLessThanOrEqual(16);
    expect(layout).toEqual({ columns: 64, groupChunks: 4, threads: 256, columnGroups: 16, chunk: 16, chunks: 63, partials: 16 });
    const pass = plan(outs, GPU).kernels.find((k) => /wide row pass/.test(k.source))!;
    expect(pass.localSize).toBe(256);
    expect(pass.groups).toEqual([256, 1]);
    // A thread a column and chunk, as with a workgroup a chunk: 1024 × 63.
    expect(pass.units).toBe(1024 * 63);
    expect(pass.source).toContain("63 chunks of 16 rows, 4 a workgroup (16 partials)");
    // Every reader loop adds 16 partials.
    const loops = plan(outs, GPU).kernels.flatMap((k) => slicedReads(k.source));
    expect(loops.length).toBeGreaterThan(0);
    expect(loops.every((q) => q === 16)).toBe(true);
  });

  it("the wide pass's layout: every row and chunk covered, workgroups within groupSize and shared memory, at most WIDE_PARTIALS partials unless those bind", () => {
    const passes = new Map<string, ReturnType<typeof passOf>>();
    fc.assert(
      fc.property(
        fc.constantFrom<Family>("logistic", "normal"), fc.integer({ min: 2, max: 20_000 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 17, max: 2048 }),
        fc.constantFrom<DType>("f32", "f64"), fc.constantFrom(GPU, REFERENCE_LIMITS.lavapipe), fc.constantFrom(8, 16, 32, 64, 128),
        fc.integer({ min: 1, max: 4096 }), fc.constantFrom(4096, 16384, 49152),
        (family, N, K, C, dtype, device, localSize, busyGroups, sharedMemoryBytes) => {
          const limits = { ...device, localSize, busyGroups, sharedMemoryBytes };
          const key = `${family} ${N} ${K} ${C} ${dtype}`;
          const pass = passes.get(key) ?? passes.set(key, passOf(regression(family, N, K, C, dtype).outs, limits)).get(key)!;
          expect(pass.wide).toBe(true);
          const l = wideRowPassLayout(pass, limits);
          expect(l.columns).toBe(Math.min(localSize, C));
          expect(l.columnGroups * l.columns).toBeGreaterThanOrEqual(C);
          expect(l.chunk * l.chunks).toBeGreaterThanOrEqual(N);
          expect(l.chunk * (l.chunks - 1)).toBeLessThan(N);
          expect(l.partials * l.groupChunks).toBeGreaterThanOrEqual(l.chunks);
          expect((l.partials - 1) * l.groupChunks).toBeLessThan(l.chunks);
          expect(l.threads).toBe(l.columns * l.groupChunks);
          const sums = pass.reductions.length + K * pass.contractions.length;
          const shared = (S: number) => S * l.columns * sums * (dtype === "f64" ? 8 : 4);
          if (l.groupChunks > 1) {
            expect(l.threads).toBeLessThanOrEqual(limits.groupSize);
            expect(shared(l.groupChunks)).toBeLessThanOrEqual(sharedMemoryBytes / 2);
          }
          // More partials only where one more chunk a workgroup would not fit.
          if (l.partials > WIDE_PARTIALS) {
            const S = l.groupChunks + 1;
            expect(S * l.columns > limits.groupSize || shared(S) > sharedMemoryBytes / 2).toBe(true);
          }
        },
      ),
      { numRuns: 150, seed: 5 },
    );
  });

  it("a normal regression's residuals take the same pass", () => {
    const { outs } = regression("normal", 20_000, 30, 4);
    expect(titles(outs, GPU).join("\n")).toMatch(/row pass over X \[20000,30\].*1 product with Xᵀ/);
  });

  it("η read outside the pass is written by it; a row-local output keeps the matmul kernels", () => {
    const { outs } = regression("logistic", 20_000, 30, 4, "f32", true);
    // exp(η) is an output of one row's values: it must be written whole, so no pass forms.
    expect(titles(outs, GPU).join("\n")).not.toContain("row pass");
    const eta = matmul(data("X", [20_000, 30], "f32"), param("b", [30, 2], "f32"));
    const pass = findRowPasses(schedule([eta, sum(eta, [0])]).order, [eta, sum(eta, [0])], schedule([eta, sum(eta, [0])]).kernels, () => true, GPU);
    expect(pass.length).toBe(1);
    expect(pass[0]!.writeEta).toBe(true);
  });

  it("limits.rowPassTeams caps the teams of a workgroup and 0 turns row passes off", () => {
    const { outs } = regression("logistic", 20_000, 30, 4);
    expect(titles(outs, { ...GPU, rowPassTeams: 1 }).join("\n")).toContain("1 team of 32 lanes (subgroup shuffles) x 8 rows a step");
    expect(titles(outs, { ...GPU, rowPassTeams: 1, rowPassSubgroup: 0 }).join("\n")).toContain("1 team of 32 threads x 8 rows a step");
    expect(titles(outs, { ...GPU, rowPassTeams: 0 }).join("\n")).not.toContain("row pass");
  });

  it("splits the rows into more workgroups where the driver caps a thread's loop iterations", () => {
    const { outs } = regression("logistic", 100_000, 100, 4);
    const s = schedule(outs, { recomputeBudget: GPU.recomputeBudget });
    const [pass] = findRowPasses(s.order, outs, s.kernels, s.isStored, GPU);
    for (const rowPassSubgroup of [0, 32]) {
      const free = rowPassLayout(pass!, { ...GPU, busyGroups: 2, rowPassSubgroup })!;
      const capped = rowPassLayout(pass!, { ...GPU, busyGroups: 2, maxLoopIterations: 5_000, rowPassSubgroup })!;
      expect(free.workgroups).toBe(1);
      expect(capped.workgroups).toBeGreaterThan(1);
      for (const l of [free, capped]) expect(l.workgroups * l.chunk).toBeGreaterThanOrEqual(100_000);
      // A step: through shared memory, a thread's loop over the 32 lanes' shares of an η, and the
      // loop of the step itself; with shuffles the step's loop alone (counted twice, as the layout does).
      expect((capped.chunk / (capped.teams * capped.teamRows)) * (rowPassSubgroup > 0 ? 2 : 34)).toBeLessThanOrEqual(2_500);
    }
  });

  it("a team that is a subgroup sums η by shuffles: no workgroup barrier and no shared partials inside the row loop", () => {
    const { outs } = regression("logistic", 100_000, 100, 4);
    const pass = (limits: RenderLimits) => plan(outs, limits).kernels.map((k) => k.source).find((s) => /row pass/.test(s))!;
    const shuffled = pass(GPU);
    const loop = shuffled.slice(shuffled.indexOf("for (int n0 = rowBegin"));
    const body = loop.slice(0, loop.indexOf("\n  }\n"));
    expect(body).toContain("subgroupShuffleXor(");
    expect(body).toContain("subgroupBarrier();");
    expect(body).not.toMatch(/(^|[^p])barrier\(\)/m);
    expect(body).not.toContain("ppl_ps[");
    expect(body).not.toContain("ppl_r0[");
    // 31 shuffles a step for 32 slots over 32 lanes (8 rows of 4 chains), one barrier of the
    // team's lanes, and the 32 residuals handed out by shuffles.
    expect(body.match(/subgroupShuffleXor\(/g)!.length).toBe(31);
    expect(body.match(/subgroupBarrier\(\)/g)!.length).toBe(1);
    expect(body.match(/subgroupShuffle\(/g)!.length).toBe(32);
    const shared = pass({ ...GPU, rowPassSubgroup: 0 });
    expect(shared).not.toContain("subgroupShuffleXor");
    expect(shared.slice(shared.indexOf("for (int n0 = rowBegin"))).toMatch(/memoryBarrierShared\(\); barrier\(\);/);
  });
});

describe.runIf(device !== undefined)("row passes on the Vulkan backend against the reference", () => {
  const dtypes: DType[] = device?.features.shaderFloat64 ? ["f32", "f64"] : ["f32"];
  for (const dtype of dtypes) {
    it(`random regressions (rows past the last block, several workgroups), ${dtype}`, async () => {
      const limits = { busyGroups: 8 };
      const backend = await vulkanBackend({ limits });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Family>("logistic", "normal"), fc.integer({ min: 2, max: 700 }), fc.integer({ min: 1, max: 40 }),
          fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant(12)), fc.constantFrom(1, 2, 8), fc.boolean(),
          async (family, N, K, chains, teams, wide) => {
            // A wide pass follows η's column axis, which one chain does not have.
            const C = wide ? Math.max(2, chains) : chains;
            const { outs, bindings } = regression(family, N, K, C, dtype);
            const want = interpret(outs, bindings);
            // Both kinds of team, each case: subgroup lanes (lavapipe's 8: more chains than lanes,
            // rows not filling a step's slots) and 32 threads through shared memory.
            for (const shuffles of wide ? [true] : [true, false]) {
              // Wide: more columns than limits.skinnyMatmulColumns take a thread a column.
              const extra = { rowPassTeams: teams, ...(wide ? { skinnyMatmulColumns: 0 } : {}), ...(shuffles ? {} : { rowPassSubgroup: 0 }) };
              const full = { ...limitsOf(device!), ...limits, ...extra };
              const all = titles(outs, full).join("\n");
              expect(all).toContain(wide ? "wide row pass" : "row pass");
              if (!wide) expect(all.includes("subgroup shuffles")).toBe(shuffles && full.rowPassSubgroup > 0);
              const b = teams === 2 && !wide && shuffles ? backend : await vulkanBackend({ limits: { ...limits, ...extra } });
              const exe = await b.compile(outs);
              const got = await exe.run(bindings);
              const again = await exe.run(bindings);
              exe.dispose?.();
              // Sums over N terms of size up to a few units: the rounding of the two summation orders.
              const tol = (dtype === "f32" ? 2e-6 : 1e-14) * N * 8;
              got.forEach((g, j) => {
                g.data.forEach((v, i) => expect(Math.abs(Number(v) - want[j]!.data[i]!), `output ${j}[${i}]`).toBeLessThanOrEqual(tol * (1 + Math.abs(want[j]!.data[i]!))));
                // A fixed order of every sum: the same bits on every run.
                expect(Array.from(again[j]!.data)).toEqual(Array.from(g.data));
              });
            }
          },
        ),
        { numRuns: 12, seed: 11 },
      );
    });
  }

  it("the pass's sums added up by their readers (a few partials each) match the reference, the same bits every run", async () => {
    const limits = { busyGroups: 8, skinnyMatmulColumns: 0 };
    for (const [N, K, C] of [[300, 7, 3], [1000, 10, 70]] as const) {
      const { outs, bindings } = regression("logistic", N, K, C);
      const source = plan(outs, { ...limitsOf(device!), ...limits }).kernels.map((k) => k.source).join("\n");
      expect(source).toContain("wide row pass");
      expect(slicedReads(source).length).toBeGreaterThan(0);
      expect(source).not.toMatch(/sum of \d+ k-slices/);
      const exe = await (await vulkanBackend({ limits })).compile(outs);
      const got = await exe.run(bindings);
      const again = await exe.run(bindings);
      exe.dispose?.();
      const want = interpret(outs, bindings);
      got.forEach((g, j) => {
        g.data.forEach((v, i) => expect(Math.abs(Number(v) - want[j]!.data[i]!), `output ${j}[${i}]`).toBeLessThanOrEqual(2e-6 * N * 8 * (1 + Math.abs(want[j]!.data[i]!))));
        expect(Array.from(again[j]!.data)).toEqual(Array.from(g.data));
      });
    }
  });

  it("the wide pass's chunks added in the workgroup: columns past the last group, rows past the last chunk, one or several chunks a workgroup", async () => {
    // The layout each case must have, then its result against the reference, the same bits every run.
    const check = async (family: Family, N: number, K: number, C: number, dtype: DType, extra: Partial<RenderLimits>) => {
      const limits = { skinnyMatmulColumns: 0, ...extra };
      const { outs, bindings } = regression(family, N, K, C, dtype);
      const layout = wideRowPassLayout(passOf(outs, { ...limitsOf(device!), ...limits }), { ...limitsOf(device!), ...limits });
      const exe = await (await vulkanBackend({ limits })).compile(outs);
      const got = await exe.run(bindings);
      const again = await exe.run(bindings);
      exe.dispose?.();
      const want = interpret(outs, bindings);
      const tol = (dtype === "f32" ? 2e-6 : 1e-14) * N * 8;
      got.forEach((g, j) => {
        g.data.forEach((v, i) => expect(Math.abs(Number(v) - want[j]!.data[i]!), `output ${j}[${i}]`).toBeLessThanOrEqual(tol * (1 + Math.abs(want[j]!.data[i]!))));
        expect(Array.from(again[j]!.data)).toEqual(Array.from(g.data));
      });
      return layout;
    };
    // 3 groups of 16 columns for 37; 78 chunks of 9 rows for 700, 5 a workgroup (the last holds 3): 16 partials.
    expect(await check("logistic", 700, 5, 37, "f32", { localSize: 16, busyGroups: 256 })).toEqual({ columns: 16, groupChunks: 5, threads: 80, columnGroups: 3, chunk: 9, chunks: 78, partials: 16 });
    // 256 threads at most (lavapipe's groupSize): 4 chunks of 64 columns a workgroup, 32 partials.
    expect(await check("normal", 1000, 10, 70, "f32", { busyGroups: 4096 })).toMatchObject({ columns: 64, groupChunks: 4, threads: 256, chunks: 125, partials: 32 });
    // Few chunks: one a workgroup, written as they are.
    expect(await check("logistic", 301, 7, 70, "f32", { busyGroups: 8 })).toMatchObject({ columns: 64, groupChunks: 1, chunk: 76, chunks: 4, partials: 4 });
    // Random shapes and workgroups.
    const dtypes: DType[] = device?.features.shaderFloat64 ? ["f32", "f64"] : ["f32"];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Family>("logistic", "normal"), fc.integer({ min: 2, max: 900 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 2, max: 90 }),
        fc.constantFrom(...dtypes), fc.constantFrom(8, 16, 64), fc.constantFrom(4, 64, 1024),
        async (family, N, K, C, dtype, localSize, busyGroups) => {
          await check(family, N, K, C, dtype, { localSize, busyGroups });
        },
      ),
      { numRuns: 8, seed: 3 },
    );
  });

  it("η written by the pass for a consumer outside it, f32", async () => {
    const x = data("X", [300, 7], "f32"), b = param("b", [7, 3], "f32");
    const eta = matmul(x, b);
    const outs = [eta, sum(softplus(eta), [0])];
    expect(titles(outs, { ...limitsOf(device!), busyGroups: 8 }).join("\n")).toContain("η written");
    const bindings = { X: matmulValues(300 * 7, 6), b: matmulValues(21, 7) };
    const exe = await (await vulkanBackend({ limits: { busyGroups: 8 } })).compile(outs);
    const got = await exe.run(bindings);
    exe.dispose?.();
    const want = interpret(outs, bindings);
    got.forEach((g, j) => g.data.forEach((v, i) => expect(Math.abs(Number(v) - want[j]!.data[i]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[j]!.data[i]!)))));
  });
});
