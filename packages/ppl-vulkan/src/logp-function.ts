import type { Node } from "@ppl/tensor";
import { lowerLogisticFunctions, lowerLpdfSums } from "@ppl/tensor/passes";
import { cooperativeRowPasses, renderCooperative, glslType, flatten, halfRead, HALF_STORAGE_EXTENSION, Scope, renderSequential, type LeafReader } from "@ppl/vulkan/internals";
import { threadSumSource, workgroupSumShared, workgroupSumSource } from "./workgroup-sum.ts";

/** A one-chain log density and gradient as GLSL, and the data buffers it reads. */
export interface LogpFunction {
  /** GLSL: declarations, the functions, and the `#define`s the NUTS template needs (LOGP, REDUCE_SUM, …). */
  readonly source: string;
  /** Data leaves and array constants in binding order (after the sampler's buffers and the scratch buffer). */
  readonly data: readonly Node[];
  /** Scratch elements per chain (intermediates kept in global memory). */
  readonly scratch: number;
  /** Extensions the source requires (GL_EXT_shader_16bit_storage when data are stored in 16 bits), for the shader's first lines. */
  readonly extensions: readonly string[];
  /** Thread mode: the workgroup size the kernel must be dispatched with (its scratch in shared memory is sized by it). */
  readonly localSize?: number;
}

/**
 * How the log density runs: by the chain's one thread, or by its whole workgroup of `workgroup`
 * threads, which keeps its intermediates in shared memory up to `sharedBytes` (global scratch
 * beyond) and merges reductions within subgroups first where the device has `subgroups`.
 */
export type LogpMode =
  | { kind: "thread"; chains?: number; sharedBytes?: number }
  | { kind: "workgroup"; workgroup: number; sharedBytes?: number; subgroups?: boolean };

/** Threads of a thread-per-chain workgroup when their scratch does not decide it. */
export const THREAD_LOCAL_SIZE = 64;

/**
 * Thread mode's workgroup size and where its scratch lives: shared memory when every thread's
 * slice fits `sharedBytes` at the usual size, or at the fewest threads that hold all the chains
 * (fewer than 64 chains leave the rest of a 64-thread workgroup idle anyway); else global memory.
 * A scan's stacked carries are read back at every step of the reverse pass, one dependent load
 * each: from shared memory that is tens of cycles, from global memory hundreds.
 */
export function threadScratchPlacement(scratchBytes: number, chains: number, sharedBytes: number): { localSize: number; onChip: boolean } {
  if (scratchBytes === 0) return { localSize: THREAD_LOCAL_SIZE, onChip: false };
  if (THREAD_LOCAL_SIZE * scratchBytes <= sharedBytes) return { localSize: THREAD_LOCAL_SIZE, onChip: true };
  const fewest = 2 ** Math.ceil(Math.log2(Math.max(1, chains)));
  if (fewest < THREAD_LOCAL_SIZE && fewest * scratchBytes <= sharedBytes) return { localSize: fewest, onChip: true };
  return { localSize: THREAD_LOCAL_SIZE, onChip: false };
}

/**
 * Shared memory the cooperative reductions' partial states take (two arrays, so that logsumexp's
 * pair fits): reductions with few outputs fold up to this many bytes / (2·W·size) outputs per pass.
 */
const REDUCTION_SHARED_BYTES = 8192;

/** Intermediates larger than this many elements leave private memory for the chain's scratch slice. */
const PRIVATE_LIMIT = 64;

/**
 * Render lp(q) and its gradient — graphs over the param `q` — as the model part of the fused
 * leapfrog inside the NUTS transition. Thread mode: one function run by the chain's thread, large
 * intermediates in the chain's slice of a scratch buffer. Workgroup mode: the chain's threads
 * compute it together (codegen/cooperative.ts), q shared through workgroup memory. Scratch is
 * bound at `scratchBinding`, data after it; the data leaves in `half` are float16_t buffers, each
 * read widened to the compute dtype.
 */
export function renderLogpFunction(
  lpGiven: Node, gradGiven: Node, q: Node, scratchBinding: number, real: "f32" | "f64", mode: LogpMode, half: ReadonlySet<Node> = new Set(),
): LogpFunction {
  // A fused log density renders as its expansion, as planProgram renders it.
  const [lp, grad] = lowerLogisticFunctions(lowerLpdfSums([lpGiven, gradGiven])) as [Node, Node];
  const data: Node[] = [];
  const T = real === "f64" ? "double" : "float";
  const scope = new Scope(undefined, "  ");
  const qName = mode.kind === "thread" ? "q" : "ppl_sq";
  const leaves: LeafReader = (n, idx) => {
    if (n === q) return `${qName}[${flatten(n.shape, idx)}]`;
    // Array constants travel like data: one read-only buffer each.
    if (n.op === "data" || (n.op === "const" && typeof n.attrs.value !== "number")) {
      let b = data.indexOf(n);
      if (b < 0) b = data.push(n) - 1;
      const e = `bd${b}.v[${flatten(n.shape, idx)}]`;
      if (half.has(n)) return halfRead(e, n.dtype);
      return n.dtype === "bool" ? `(${e} != 0)` : e;
    }
    return undefined;
  };
  const lines: string[] = [`layout(std430, set = 0, binding = ${scratchBinding}) restrict buffer Scratch { ${T} v[]; } bs;`];
  let scratch: number;
  let localSize: number | undefined;
  if (mode.kind === "thread") {
    // Where the scratch lives is decided once its size is known: PPL_TSCR.
    const at = (offset: number, flat: string) => `PPL_TSCR(${offset} + ${flat})`;
    const program = renderSequential([lp, grad], leaves, scope, undefined, undefined, "m", { limit: PRIVATE_LIMIT, dtype: real, at });
    scratch = program.spilled;
    const bytes = real === "f64" ? 8 : 4;
    const placed = threadScratchPlacement(scratch * bytes, mode.chains ?? THREAD_LOCAL_SIZE, mode.sharedBytes ?? 0);
    localSize = placed.localSize;
    const lpVal = program.r.value(lp, [], scope);
    const gi = program.r.fresh("gi");
    const loop = scope.child();
    loop.emit(`g[${gi}] = ${T}(${program.r.value(grad, [gi], loop)});`);
    scope.block(`for (int ${gi} = 0; ${gi} < ${grad.size}; ${gi}++)`, loop);
    scope.emit(`return ${T}(${lpVal});`);
    lines.push(
      ...(placed.onChip
        ? [`shared ${T} ppl_tscratch[${localSize * scratch}];`, `#define PPL_TSCR(i) ppl_tscratch[gl_LocalInvocationID.x * ${scratch}u + (i)]`]
        : [`#define PPL_SCRATCH_BASE (gl_GlobalInvocationID.x * ${Math.max(1, scratch)}u)`, "#define PPL_TSCR(i) bs.v[PPL_SCRATCH_BASE + (i)]"]),
      "#define WG 1",
      "#define LID 0u",
      ...threadSumSource(),
      "#define LOGP() lp = ppl_logp_grad(q, g)",
    );
    if (placed.onChip) scratch = 0;
    data.forEach((n, i) => lines.push(dataDecl(n, i, scratchBinding, half.has(n))));
    lines.push(`${T} ppl_logp_grad(in ${T} q[D], out ${T} g[D]) {`, ...scope.lines, "}");
  } else {
    const W = mode.workgroup;
    const bytes = real === "f64" ? 8 : 4;
    const capacity = W * Math.max(1, Math.floor(REDUCTION_SHARED_BYTES / (2 * W * bytes)));
    const subgroups = mode.subgroups ?? false;
    // Where the intermediates live is decided once their size is known: PPL_SCR and PPL_NODE_BARRIER.
    const program = renderCooperative([lp, grad], leaves, scope, {
      at: (offset, flat) => `PPL_SCR(${offset} + ${flat})`,
      dtype: real,
      workgroup: W,
      lid: "gl_LocalInvocationID.x",
      shared: ["ppl_red0", "ppl_red1"],
      sharedCapacity: capacity,
      subgroups,
      barrier: "PPL_NODE_BARRIER();",
    });
    scratch = program.scratchSize;
    const lpVal = program.r.value(lp, [], scope);
    scope.emit(`return ${T}(${lpVal});`);
    // The gradient is read back element by element after the final barrier of ppl_logp_grad.
    const gScope = new Scope(undefined, "  ");
    gScope.emit(`return ${T}(${program.r.value(grad, ["i"], gScope)});`);
    // Shared memory left for the intermediates once the reductions, q, the NUTS sums and a dense
    // metric's gathered vector have theirs: on chip, a node's values are a few cycles away instead
    // of an L2 round trip, and the barrier between nodes need not order global memory.
    const redArrays = ["ppl_red0", "ppl_red1"].slice(0, program.sharedUsed);
    const fixed = (redArrays.length * capacity + 2 * dim(q) + workgroupSumShared(W)) * bytes;
    const onChip = scratch * bytes <= (mode.sharedBytes ?? 0) - fixed;
    lines.push(
      `#define WG ${W}`,
      "#define LID gl_LocalInvocationID.x",
      ...redArrays.map((a) => `shared ${T} ${a}[${capacity}];`),
      `shared ${T} ppl_sq[D];`,
      ...(onChip
        ? [`shared ${T} ppl_scratch[${Math.max(1, scratch)}];`, "#define PPL_SCR(i) ppl_scratch[i]", "#define PPL_NODE_BARRIER() memoryBarrierShared(); barrier()"]
        : [
            `#define PPL_SCRATCH_BASE (gl_WorkGroupID.x * ${Math.max(1, scratch)}u)`,
            "#define PPL_SCR(i) bs.v[PPL_SCRATCH_BASE + (i)]",
            "#define PPL_NODE_BARRIER() memoryBarrierBuffer(); memoryBarrierShared(); barrier()",
          ]),
      ...workgroupSumSource(real, W, subgroups),
      "#define LOGP() { FOR_OWNED(s, i) ppl_sq[i] = q[s]; barrier(); lp = ppl_logp_grad(); FOR_OWNED(s, i) g[s] = ppl_grad_at(i); barrier(); }",
    );
    if (onChip) scratch = 0;
    data.forEach((n, i) => lines.push(dataDecl(n, i, scratchBinding, half.has(n))));
    lines.push(`${T} ppl_logp_grad() {`, ...scope.lines, "}", `${T} ppl_grad_at(int i) {`, ...gScope.lines, "}");
  }
  const extensions = data.some((n) => half.has(n)) ? [HALF_STORAGE_EXTENSION] : [];
  return { source: lines.join("\n"), data, scratch, extensions, ...(localSize === undefined ? {} : { localSize }) };
}

const dim = (q: Node) => q.size;

/**
 * Whether the workgroup shape computes lp and its gradient (ppl's gradientGraph) with a row pass:
 * a regression's rows in one pass over them (cooperative-row-pass.ts), not a pass a node.
 */
export function rendersRowPass(lp: Node, grad: Node): boolean {
  return cooperativeRowPasses(lowerLogisticFunctions(lowerLpdfSums([lp, grad]))).length > 0;
}

function dataDecl(n: Node, i: number, scratchBinding: number, half: boolean): string {
  const element = half ? "float16_t" : n.dtype === "bool" ? "int" : glslType(n.dtype);
  // restrict: no other binding aliases a data buffer, so its reads may go through the read-only caches.
  return `layout(std430, set = 0, binding = ${scratchBinding + 1 + i}) readonly restrict buffer Data${i} { ${element} v[]; } bd${i};`;
}
