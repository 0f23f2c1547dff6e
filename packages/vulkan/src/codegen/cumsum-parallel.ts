import { type Node } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import { glslType, literal } from "./glsl.ts";
import { flatten, unflatten } from "./index-math.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { monoidFor } from "./reduce/monoid.ts";
import { reducePartitions } from "./reduce/strategy.ts";
import { workgroupReduce } from "./reduce/workgroup.ts";
import { Scope } from "./scope.ts";
import { stridedLoop } from "./strided-loop.ts";
import type { KernelPlan, ScratchBuffer } from "./shader.ts";

// A long cumulative sum (a random walk's 100k steps, a cumulative hazard) as a blocked scan over
// workgroups, not one thread walking each line: one thread a line would leave a GPU nearly idle
// for as many dependent additions as the line is long. Each line is cut into P blocks, a workgroup
// each. With P > 1 a first kernel sums every block; the second gives each workgroup its block's
// offset (the sum of the blocks before it) and scans the block: each thread sums a contiguous run
// of the block (kept in registers when short), the workgroup scans those run sums (subgroup scans,
// then the subgroups' totals in order; or Hillis–Steele in shared memory without subgroup
// arithmetic), and each thread walks its run again from its prefix, writing the outputs.
//
// Every addition's order is fixed by the layout (the block, the run, the tree), never by timing,
// so reruns are bit-identical. The association differs from the one-thread loop's (a blocked sum
// rounds less on long lines: about log of the length instead of the length), so results agree
// with the CPU to rounding, not bit for bit.

/** Longest run a thread keeps in registers between its two walks. */
const RUN_IN_REGISTERS = 16;

/** Blocks per line of a cumsum (workgroups each), or 0 to keep one thread walking each line. */
export function cumsumPartitions(node: Node, f: Pick<KernelFactory, "limits">): number {
  const n = node.shape[node.attrs.axis!]!;
  if (n < f.limits.scanBlockMin) return 0;
  // As many blocks as a reduction over n terms into node.size / n outputs would take workgroups
  // (reduce/strategy.ts): none where the lines alone give the device enough threads and each fits
  // one thread's loop budget.
  return reducePartitions(node.size / n, n, f.limits);
}

/** The kernels of a cumsum scanned in `partitions` blocks a line: block sums (when more than one), then the scan. */
export function parallelCumsumKernels(node: Node, partitions: number, f: KernelFactory): KernelPlan[] {
  const axis = node.attrs.axis!;
  const n = node.shape[axis]!;
  const reverse = node.attrs.reverse === true;
  const lineShape = node.shape.map((d, a) => (a === axis ? 1 : d));
  const lines = sizeOf(lineShape);
  const P = partitions;
  const G = f.limits.groupSize;
  const T = glslType(node.dtype);
  const zero = literal(0, node.dtype);
  const x = node.inputs[0]!;
  // Block p of a line holds scan positions [p·L, min(n, (p + 1)·L)); a thread of it a run of R.
  const L = Math.ceil(n / P);
  const R = Math.ceil(L / G);
  // Position s along the scan (0 first) as the element's index on the axis.
  const element = (s: string) => (reverse ? `(${n - 1} - ${s})` : s);
  const index = (s: string) => {
    const idx = unflatten(lineShape, "o");
    idx[axis] = element(s);
    return idx;
  };
  const head = (main: Scope) => {
    main.emit(`int o = gid / ${P};`);
    main.emit(`int p = gid - o * ${P};`);
    main.emit(`int pEnd = min(${n}, (p + 1) * ${L});`);
  };
  const blockSums: ScratchBuffer = { kind: "scratch", dtype: node.dtype, size: lines * P, label: `the sums of each line's ${P} blocks` };
  const kernels: KernelPlan[] = [];
  const sum = monoidFor("reduce_sum", node.dtype);

  if (P > 1) {
    // Every block's sum, its threads striding the block and merged in the workgroup's fixed tree.
    const sh = f.shader();
    const main = new Scope(undefined, "");
    head(main);
    main.emit(`${T} acc = ${zero};`);
    // The loop of a split reduction's slice (strided-loop.ts): several loads in flight a trip,
    // folded in order, and what does not vary along the line computed before it.
    const range = { name: "s", start: `p * ${L} + int(gl_LocalInvocationIndex)`, end: "pEnd", stride: G };
    stridedLoop(main, range, f.limits.loopIterationsInFlight, (body, at) => [`acc += ${sh.r.value(x, index(at), body)};`]);
    const wg = workgroupReduce(sum, ["acc"], G, f.limits.subgroupArithmetic);
    for (const l of wg.lines) main.emit(l);
    main.emit(`if (${wg.leader}) ${sh.bind(blockSums, "write")}[gid] = acc;`);
    kernels.push(f.finish({
      node, localSize: G, workgroups: lines * P, units: lines * P * G, extensions: wg.extensions, shared: wg.shared, main: main.lines,
      title: `cumsum's block sums: ${P} blocks of ${L} a line, ${lines} lines`,
    }, sh));
  }

  const sh = f.shader();
  const main = new Scope(undefined, "");
  head(main);
  const extensions: string[] = [];
  const shared: string[] = [`shared ${T} ppl_runs[${G}];`];
  main.emit(`${T} ppl_offset = ${zero};`);
  if (P > 1) {
    // The blocks before this one, folded in a fixed stride a thread and merged in the fixed tree.
    main.emit(`${T} acc = ${zero};`);
    const fold = main.child();
    fold.emit(`acc += ${sh.bind(blockSums, "read")}[o * ${P} + j];`);
    main.block(`for (int j = int(gl_LocalInvocationIndex); j < p; j += ${G})`, fold);
    const wg = workgroupReduce(sum, ["acc"], G, f.limits.subgroupArithmetic);
    for (const l of wg.lines) main.emit(l);
    main.emit(`if (${wg.leader}) ppl_runs[0] = acc;`);
    main.emit("memoryBarrierShared(); barrier();");
    main.emit("ppl_offset = ppl_runs[0];");
    main.emit("memoryBarrierShared(); barrier();");
    extensions.push(...wg.extensions);
    shared.push(...wg.shared);
  }
  // This thread's run of the block, and its sum; a short run's terms stay in registers for the
  // second walk (no second load, no second evaluation of an inline producer).
  main.emit(`int s0 = p * ${L} + int(gl_LocalInvocationIndex) * ${R};`);
  main.emit(`int s1 = min(pEnd, s0 + ${R});`);
  main.emit(`${T} run = ${zero};`);
  const kept = R <= RUN_IN_REGISTERS;
  // Loop bodies that name what varies in them, so that what does not vary along the line (a
  // chain's σ in σ·z) is computed once before the loop (scope.ts).
  const walk = (each: (body: Scope) => void) => {
    if (kept) {
      const body = main.loop(["i", "s"]);
      body.emit("int s = s0 + i;");
      body.emit("if (s >= s1) break;");
      each(body);
      main.block(`for (int i = 0; i < ${R}; i++)`, body);
    } else {
      const body = main.loop(["s"]);
      each(body);
      main.block("for (int s = s0; s < s1; s++)", body);
    }
  };
  if (kept) main.emit(`${T} ppl_terms[${R}];`);
  walk((body) => {
    const v = sh.r.value(x, index("s"), body);
    if (kept) body.emit(`ppl_terms[i] = ${v};`);
    body.emit(`run += ${kept ? "ppl_terms[i]" : v};`);
  });
  if (f.limits.subgroupArithmetic) {
    // The runs before this thread's: its subgroup's by a subgroup scan, the subgroups before it
    // through shared memory, in subgroup order.
    extensions.push("GL_KHR_shader_subgroup_basic", "GL_KHR_shader_subgroup_arithmetic");
    main.emit(`${T} ppl_before = subgroupExclusiveAdd(run);`);
    main.emit(`${T} ppl_total = subgroupAdd(run);`);
    main.emit("if (subgroupElect()) ppl_runs[gl_SubgroupID] = ppl_total;");
    main.emit("memoryBarrierShared(); barrier();");
    main.emit(`${T} at = ppl_offset;`);
    main.emit("for (uint j = 0u; j < gl_SubgroupID; j++) at += ppl_runs[j];");
    main.emit("at += ppl_before;");
  } else {
    // Inclusive scan of the run sums: after the round of distance d, slot t holds runs t−2d+1 … t.
    main.emit("ppl_runs[gl_LocalInvocationIndex] = run;");
    main.emit("memoryBarrierShared(); barrier();");
    const round = main.child();
    round.emit(`${T} before = gl_LocalInvocationIndex >= d ? ppl_runs[gl_LocalInvocationIndex - d] : ${zero};`);
    round.emit("memoryBarrierShared(); barrier();");
    round.emit("ppl_runs[gl_LocalInvocationIndex] = before + ppl_runs[gl_LocalInvocationIndex];");
    round.emit("memoryBarrierShared(); barrier();");
    main.block(`for (uint d = 1u; d < ${G}u; d <<= 1)`, round);
    main.emit(`${T} at = ppl_offset + (gl_LocalInvocationIndex > 0u ? ppl_runs[gl_LocalInvocationIndex - 1u] : ${zero});`);
  }
  // The run again from its prefix (the blocks before, then the runs before), writing each output.
  walk((body) => {
    body.emit(`at += ${kept ? "ppl_terms[i]" : sh.r.value(x, index("s"), body)};`);
    body.emit(sh.storage.write(node, flatten(node.shape, index("s")), "at"));
  });
  kernels.push(f.finish({
    node, localSize: G, workgroups: lines * P, units: lines * P * G, extensions: [...new Set(extensions)], shared, main: main.lines,
    title: `cumsum scanned in blocks: ${P} of ${L} a line (runs of ${R} a thread), ${lines} lines`,
  }, sh));
  return kernels;
}
