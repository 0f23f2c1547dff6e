import type { Node } from "@ppl/tensor";
import { unflatten } from "./index-math.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { Scope } from "./scope.ts";
import type { KernelPlan, ScratchBuffer, ShaderBuilder } from "./shader.ts";

/** A segment layout (see SegmentLayout) built on the device: the kernels that build it and the buffers they leave it in. */
export interface DeviceSegments {
  readonly kernels: readonly KernelPlan[];
  /** N flat positions into the index tensor, stably sorted by target. */
  readonly order: ScratchBuffer;
  /** J + 1 starts of each target's run in `order`. */
  readonly offsets: ScratchBuffer;
}

/** Entries one thread of the counting kernels walks, at least: fewer blocks keep the digit-count table small. */
const MIN_BLOCK = 256;
/** Most blocks of entries: bounds the digit-count table, and the scan over it, whatever N is. */
const MAX_BLOCKS = 4096;
/** Most bits of the target sorted per pass (256 counters per thread). */
const DIGIT_BITS = 8;

/**
 * The segment layout of a scatter_add whose indices are known only at run time (data, or computed
 * values), built on the device by a stable LSD radix sort of the entry positions by target.
 * Stability, not atomics, is what makes it deterministic: every pass is a counting sort in which
 * each thread walks its own block of entries in order, and blocks are placed in block order, so
 * entries of one target keep their original order and the scatter sums them as the CPU backends
 * do, bit-identically on every run. (Integer atomics would give the same counts but place equal
 * targets in an arbitrary order; float atomics would also make the sums themselves vary.)
 *
 * Per pass over the digits of the target (8 bits, so targets below 256 take one pass and below
 * 65536 two): a count kernel (a thread per block of entries counts its digits), a scan kernel (one
 * workgroup turns the [digit, block] counts into exclusive starts) and a place kernel (each
 * thread writes its block's positions at its starts, in order). A final kernel finds each target's
 * offset by binary search over the sorted entries. All work is O(N + J) per pass except the
 * O(J log N) search. An index outside [0, J) sorts after every target and so belongs to no
 * segment: the shader cannot raise, and the host checks indices it can see (index-range.ts).
 *
 * The kernels are planned for `ind`, not for the scatter: a sampler that runs the kernels reading
 * only data once (before its first gradient) builds a data index's layout once.
 */
export function segmentSortKernels(ind: Node, targets: number, f: KernelFactory): DeviceSegments {
  const N = ind.size;
  const J = targets;
  const bits = Math.max(1, Math.ceil(Math.log2(J + 1))); // keys 0..J, J standing for out of range
  const w = Math.min(DIGIT_BITS, bits);
  const R = 1 << w;
  const passes = Math.ceil(bits / w);
  const S = Math.max(MIN_BLOCK, Math.ceil(N / MAX_BLOCKS));
  const B = Math.ceil(N / S);
  const L = f.limits.localSize;
  const G = f.limits.groupSize;
  const i32 = (size: number, label: string): ScratchBuffer => ({ kind: "scratch", dtype: "i32", size, label });
  const counts = i32(R * B, `segment sort: ${R} digit counts for each of ${B} blocks of ${S} entries`);
  const pos = [i32(N, "segment sort: positions after even passes"), i32(N, "segment sort: positions after odd passes")] as const;
  const order = pos[(passes - 1) % 2];
  const offsets = i32(J + 1, `segment offsets of ${J} targets`);

  // The target of entry `p` (a GLSL int), J when out of range.
  const keyOf = (sh: ShaderBuilder, p: string, scope: Scope): string => {
    const v = sh.r.value(ind, unflatten(ind.shape, p), scope);
    const k = sh.r.fresh("key");
    scope.emit(`int ${k} = (${v} >= 0 && ${v} < ${J}) ? ${v} : ${J};`);
    return k;
  };
  const finish = (sh: ShaderBuilder, main: Scope, title: string, units: number, localSize: number, shared?: string[]): KernelPlan =>
    f.finish({ node: ind, localSize, workgroups: Math.ceil(units / localSize), units, main: main.lines, title, ...(shared ? { shared } : {}) }, sh);

  // A thread per block of S entries, walking them in order: `visit` sees each entry's position p and digit d.
  const blockKernel = (pass: number, title: string, before: (sh: ShaderBuilder, main: Scope) => void, visit: (sh: ShaderBuilder, body: Scope) => void, after: (sh: ShaderBuilder, main: Scope) => void): KernelPlan => {
    const sh = f.shader();
    const main = new Scope(undefined, "");
    main.emit(`int blk = gid * ${L} + int(gl_LocalInvocationIndex);`);
    main.emit(`if (blk >= ${B}) return;`);
    main.emit(`int cnt[${R}];`);
    before(sh, main);
    const body = main.child();
    body.emit(`int p = ${pass === 0 ? "i" : `${sh.bind(pos[(pass - 1) % 2], "read")}[i]`};`);
    const key = keyOf(sh, "p", body);
    body.emit(`int d = ${pass === 0 ? key : `(${key} >> ${pass * w})`} & ${R - 1};`);
    visit(sh, body);
    main.block(`for (int i = blk * ${S}; i < min(${N}, (blk + 1) * ${S}); i++)`, body);
    after(sh, main);
    return finish(sh, main, `segment sort pass ${pass + 1} of ${passes}: ${title}`, B, L);
  };

  const kernels: KernelPlan[] = [];
  for (let pass = 0; pass < passes; pass++) {
    kernels.push(
      blockKernel(
        pass,
        "count each block's digits",
        (_sh, main) => main.emit(`for (int d = 0; d < ${R}; d++) cnt[d] = 0;`),
        (_sh, body) => body.emit("cnt[d] += 1;"),
        (sh, main) => main.emit(`for (int d = 0; d < ${R}; d++) ${sh.bind(counts, "write")}[d * ${B} + blk] = cnt[d];`),
      ),
    );
    kernels.push(scanKernel(pass));
    kernels.push(
      blockKernel(
        pass,
        "place each block's positions at their starts, in order",
        (sh, main) => main.emit(`for (int d = 0; d < ${R}; d++) cnt[d] = ${sh.bind(counts, "read")}[d * ${B} + blk];`),
        (sh, body) => body.emit(`${sh.bind(pos[pass % 2], "write")}[cnt[d]] = p; cnt[d] += 1;`),
        () => {},
      ),
    );
  }
  kernels.push(offsetsKernel());
  return { kernels, order, offsets };

  // One workgroup: the [digit, block] counts (digit-major, so blocks stay in order within a digit) become exclusive starts, in place.
  function scanKernel(pass: number): KernelPlan {
    const sh = f.shader();
    const c = sh.bind(counts, "readwrite");
    const M = R * B;
    const chunk = Math.ceil(M / G);
    const main = new Scope(undefined, "");
    main.emit("int t = int(gl_LocalInvocationIndex);");
    main.emit(`int lo = t * ${chunk}, hi = min(${M}, lo + ${chunk});`);
    main.emit("int run = 0;");
    main.emit(`for (int i = lo; i < hi; i++) run += ${c}[i];`);
    main.emit("ppl_scan[t] = run;");
    main.emit("memoryBarrierShared(); barrier();");
    main.emit(`if (t == 0) { int s = 0; for (int i = 0; i < ${G}; i++) { int v = ppl_scan[i]; ppl_scan[i] = s; s += v; } }`);
    main.emit("memoryBarrierShared(); barrier();");
    main.emit("run = ppl_scan[t];");
    main.emit(`for (int i = lo; i < hi; i++) { int v = ${c}[i]; ${c}[i] = run; run += v; }`);
    return finish(sh, main, `segment sort pass ${pass + 1} of ${passes}: exclusive scan of the digit counts`, G, G, [`shared int ppl_scan[${G}];`]);
  }

  // A thread per target j (and one for the end): the first sorted entry whose target is ≥ j.
  function offsetsKernel(): KernelPlan {
    const sh = f.shader();
    const main = new Scope(undefined, "");
    main.emit(`int j = gid * ${L} + int(gl_LocalInvocationIndex);`);
    main.emit(`if (j > ${J}) return;`);
    main.emit(`int lo = 0, hi = ${N};`);
    const step = main.child();
    step.emit("int mid = (lo + hi) >> 1;");
    step.emit(`int p = ${sh.bind(order, "read")}[mid];`);
    const key = keyOf(sh, "p", step);
    step.emit(`if (${key} < j) lo = mid + 1; else hi = mid;`);
    main.block("while (lo < hi)", step);
    main.emit(`${sh.bind(offsets, "write")}[j] = lo;`);
    return finish(sh, main, `segment offsets of ${J} targets (binary search over the sorted entries)`, J + 1, L);
  }
}
