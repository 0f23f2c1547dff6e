import { GraphError, type DType, type Node } from "@ppl/tensor";
import { isReduce, sizeOf } from "@ppl/tensor/ir";
import { lowerLogisticFunctions, lowerLpdfSums, sumScattersOverRows } from "@ppl/tensor/passes";
import type { RenderLimits } from "./limits.ts";
import { isStreamable, streamKernel } from "./elementwise-stream.ts";
import { skinnyMatmulKernels } from "./matmul-skinny.ts";
import { tiledMatmulKernels } from "./matmul-tiled.ts";
import { cumsumPartitions, parallelCumsumKernels } from "./cumsum-parallel.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { parallelReduceKernels } from "./reduce/parallel.ts";
import { checkKnownIndices } from "./index-range.ts";
import { checkLinalgLoopBudget } from "./linalg-units.ts";
import { checkScanLoopBudget, checkSerialLoopBudget } from "./scan-budget.ts";
import { renderScan } from "./sequential.ts";
import { splitLongScans } from "./split-long-scans.ts";
import { knownSegments, segmentConstants } from "./scatter-segments.ts";
import { laneScatterKernel, segmentLanes } from "./scatter-lanes.ts";
import { segmentedScatterUnits } from "./scatter-units.ts";
import { checkKernelBindings, scheduleWithinBindings } from "./binding-budget.ts";
import { Scope } from "./scope.ts";
import { segmentSortKernels, type DeviceSegments } from "./segment-sort.ts";
import { assemble, isScratch, ShaderBuilder, toposortAll, type KernelPlan, type ScratchBuffer } from "./shader.ts";
import { reducePartitions } from "./reduce/strategy.ts";
import { findReduceSiblings, isReduceSiblings, placeSiblings, siblingReduceKernels } from "./reduce/siblings.ts";
import { findRowPasses, isRowPass, rowPassKernels, rowPassLayout, rowPassMembers, withRowPasses } from "./row-pass.ts";
import { wideRowPassKernels, wideRowPassLayout } from "./row-pass-wide.ts";
import { inlinedSliceSums } from "./inline-slices.ts";
import type { SlicedValue } from "./kernel-plan.ts";
import { mergeIndependentKernels } from "./merge-kernels.ts";
import { renderEpilogue, type EpilogueSource } from "./epilogue.ts";
import { matmulKernel, streamUnitsPerThread } from "./strategy.ts";
import { unitWriter, type UnitContext, type UnitWriter } from "./units.ts";

export type { Binding, KernelPlan, ScratchBuffer } from "./shader.ts";
export type { EpilogueSource } from "./epilogue.ts";
export { isScratch } from "./shader.ts";

/** A graph as a list of kernels run in order over buffers: one per stored node, plus scratch buffers between the passes of multi-kernel nodes. */
export interface ProgramPlan {
  /**
   * The nodes whose buffers hold the results, in the order given: the given outputs themselves
   * unless planning rebuilt the graph above them (a wide concat split, binding-budget.ts), so
   * callers find the results' buffers through these.
   */
  readonly outputs: readonly Node[];
  readonly kernels: readonly KernelPlan[];
  /** Every node with a buffer: leaves (params, data, array constants, known scatter layouts) and kernel results. */
  readonly buffers: readonly Node[];
  /** Buffers holding no node (partial results of parallel reductions and split matmuls). */
  readonly scratch: readonly ScratchBuffer[];
  /** The dtypes the program computes in (f64 needs shaderFloat64). */
  readonly dtypes: ReadonlySet<DType>;
  /** Data leaves whose buffers hold 16-bit floats (PlanOptions.halfStorage): 2 bytes an element, written with toFloat16Bytes. */
  readonly half: ReadonlySet<Node>;
  /** The index in `kernels` of the kernel that computes exactly the outputs, which an epilogue replaces; -1 if none does alone. */
  readonly outputKernel: number;
  /**
   * The outputs as GLSL functions for a shader that computes them where it reads them, in place of
   * the kernel that computes them (epilogue.ts): undefined where no kernel computes exactly the
   * outputs, or it does more than compute them element by element. Its buffers bound from `base`;
   * `named` arrays the shader already binds; `chains` the outputs' leading axis where each chain's
   * elements read only that chain's values.
   */
  epilogue(base: number, named: (n: Node) => string | undefined, chains?: number): EpilogueSource | undefined;
}

/** How planProgram arranges its kernels. */
export interface PlanOptions {
  /**
   * Merge kernels that touch no buffer another writes into single dispatches (merge-kernels.ts);
   * a function keeps apart the kernels it gives different keys (e.g. those run once from those
   * run at every evaluation). Off by default: each stored node keeps a kernel of its own.
   */
  readonly merge?: boolean | ((node: Node) => string);
  /**
   * Float data leaves to store on the device as 16-bit floats (half the bytes to read; each
   * element rounded, relative error ≤ 2^-11) and compute with in their own dtype. Needs
   * limits.storage16; default none.
   */
  readonly halfStorage?: ReadonlySet<Node>;
  /**
   * Whether the values of a scatter's index (a node that reads only data) are known, from the data
   * bound to the program, to be non-decreasing and within [0, targets): the segment of target j is
   * then the positions offsets[j] … offsets[j+1] − 1 themselves, and the scatter reads its rows
   * without the sorted order's indirection. Default: never known.
   */
  readonly sortedIndex?: (index: Node, targets: number) => boolean;
}

/** Plan the kernels of a graph and render their GLSL; `prelude` gives the shared function source. */
export function planProgram(given: readonly Node[], limits: RenderLimits, prelude: (dtypes: ReadonlySet<DType>) => string, options: PlanOptions = {}): ProgramPlan {
  // Kernels that would read more buffers than a shader may bind get their inputs narrowed first
  // (binding-budget.ts); the outputs are then the rewritten graph's, which callers read from the plan.
  // lpdf_sum is lowered to its expansion, a sum of elementwise terms that the reduction kernels
  // already fuse: the GPU gradient of a regression is bound by reading the data, which a kernel of
  // its own would read as often (callers read the rewritten outputs from the plan). The logistic
  // functions are written in exp(−|x|) and log1p, so that a log density's and its gradient's
  // calls of one argument share their exp (lower-logistic.ts). Sums over a scatter's targets are
  // written over its rows, so that they need not wait for the scatter (sum-scatters-over-rows.ts:
  // a hierarchical model's gradient of its group-level parameters).
  // Scans of carries alone too long for one thread under the driver's loop cap run as a chain of
  // shorter ones (split-long-scans.ts: an ODE solver's intervals on lavapipe).
  const lowered = splitLongScans(sumScattersOverRows(lowerLogisticFunctions(lowerLpdfSums(given))), limits.maxLoopIterations);
  const { outputs, schedule: sched } = scheduleWithinBindings(lowered, limits);
  const all = toposortAll(outputs);
  const dtypes = new Set(all.map((n) => n.dtype));
  if (dtypes.has("f64") && !limits.float64) {
    throw new GraphError("this device has no shaderFloat64: compute in f32 (dtype f32) or choose another device");
  }
  const half = options.halfStorage ?? new Set<Node>();
  checkHalfStorage(half, limits);
  checkKnownIndices(outputs);
  checkLinalgLoopBudget(all, limits.maxLoopIterations);
  checkScanLoopBudget(sched.kernels, limits.maxLoopIterations);
  checkSerialLoopBudget(sched.kernels, limits.maxLoopIterations);
  const tupleUsers = new Map<Node, Node[]>();
  for (const n of sched.order) if (n.op === "tuple_get") tupleUsers.set(n.inputs[0]!, [...(tupleUsers.get(n.inputs[0]!) ?? []), n]);
  // The segment layouts of scatters with indices fixed at build time are read-only buffers of the program.
  const layouts = segmentConstants(all, limits.maxLoopIterations);
  const layoutSet = new Set(layouts);
  // Array constants inside scan bodies (an identity in a vjp rule, a matrix in an ODE's right-hand
  // side) are read-only buffers too: the body's one-thread code reads them from the kernel's storage.
  const bodyConsts = [...new Set(all.filter((n) => n.op === "const" && typeof n.attrs.value !== "number" && !sched.isStored(n)))];
  const bodyConstSet = new Set(bodyConsts);
  // Products with a stored matrix whose rows' terms end in row sums and Xᵀ·R: one pass over X (row-pass.ts).
  const passes = findRowPasses(sched.order, outputs, sched.kernels, sched.isStored, limits);
  const unstored = new Set(passes.flatMap((p) => [...p.absorbed, ...(p.writeEta ? [] : [p.eta])]));
  const isStored = (n: Node) => (sched.isStored(n) && !unstored.has(n)) || layoutSet.has(n) || bodyConstSet.has(n);
  // The passes' and split reductions' sums with few partials whose readers add them up
  // themselves: no merge, no buffer (inline-slices.ts).
  const inPasses = new Set(passes.flatMap(rowPassMembers));
  const reads = storedReads(isStored);
  // A sum computed once (it reads only data) and read at every evaluation is cheaper merged once.
  const key = typeof options.merge === "function" ? options.merge : () => "";
  const readBy = (n: Node) => sched.kernels.filter((k) => reads(k).has(n));
  const partials = new Map([
    ...passes.flatMap((p) => {
      const slices = p.wide ? wideRowPassLayout(p, limits).partials : rowPassLayout(p, limits)!.workgroups;
      return [...p.reductions, ...p.contractions].map((n) => [n, slices] as const);
    }),
    ...sched.kernels.filter((n) => !inPasses.has(n)).flatMap((n) => {
      const slices = splitSumPartitions(n, limits);
      return slices > 1 && readBy(n).every((k) => key(k) === key(n)) ? [[n, slices] as const] : [];
    }),
  ]);
  const candidatesSliced = inlinedSliceSums(partials, sched.kernels, isStored, outputs, inPasses);
  // Sums over the same elements, as one kernel each group (reduce/siblings.ts).
  const siblings = findReduceSiblings(sched.kernels.filter((n) => !inPasses.has(n)), reads, limits);
  // A group's sums share one pass and its merge: either every one leaves its partials, or none.
  const sliced = new Map(candidatesSliced);
  for (const g of siblings) if (!g.members.every((m) => sliced.has(m))) g.members.forEach((m) => sliced.delete(m));
  const buffers = [...sched.order.filter((n) => sched.isStored(n) && !unstored.has(n) && !sliced.has(n)), ...layouts, ...bodyConsts];
  const deviceSegments = new Map<string, DeviceSegments>();
  const factory = kernelFactory(isStored, half, limits, prelude, sliced);
  const items = placeSiblings(withRowPasses(sched.kernels, passes), siblings, (it) => (isRowPass(it) ? rowPassMembers(it) : [it]), reads);
  // Kernels with nothing to compute (zero-size results) are dropped: there is no work to dispatch.
  const rendered = items
    .filter((item) => isReduceSiblings(item) || isRowPass(item) || item.op === "scan" || item.size > 0)
    .flatMap((item) =>
      isReduceSiblings(item) ? siblingReduceKernels(item, factory)
      : isRowPass(item) ? (item.wide ? wideRowPassKernels : rowPassKernels)(item, factory)
      : renderKernels(item, factory, tupleUsers, deviceSegments, options.sortedIndex))
    .filter((k) => k.units > 0);
  checkKernelBindings(rendered, limits.maxStorageBuffers);
  const merge = options.merge ?? false;
  const kernels = merge === false ? rendered : mergeIndependentKernels(rendered, limits, prelude, merge === true ? undefined : merge);
  const scratch = [...new Set(kernels.flatMap((k) => k.bindings.filter(isScratch)))];
  // The kernel that computes exactly the outputs, which an epilogue replaces: not always the last
  // in the list, where kernels of data alone come after it (a segment layout's passes).
  const outputKernel = kernels.findIndex((k) => k.nodes.length === outputs.length && outputs.every((o) => k.nodes.includes(o)));
  const epilogue = (base: number, named: (n: Node) => string | undefined, chains?: number) => renderEpilogue(outputs, kernels[outputKernel], factory, base, named, chains);
  return { outputs, kernels, buffers, scratch, dtypes, half, outputKernel, epilogue };
}

// Workgroups per output of a float sum that renderKernels splits (reduce/parallel.ts), else 0:
// its partials are a plain sum's, which a reader can add up (logsumexp's pairs cannot).
function splitSumPartitions(n: Node, limits: RenderLimits): number {
  if (n.op !== "reduce_sum" || (n.dtype !== "f32" && n.dtype !== "f64")) return 0;
  const x = n.inputs[0]!;
  return reducePartitions(n.size, sizeOf(n.attrs.axes!.map((a) => x.shape[a]!)), limits);
}

// Only float data can be rounded to 16 bits, and only a device with 16-bit storage can hold it.
function checkHalfStorage(half: ReadonlySet<Node>, limits: RenderLimits): void {
  if (half.size === 0) return;
  if (!limits.storage16) {
    throw new GraphError("this device has no 16-bit storage (storageBuffer16BitAccess): store the data in full precision (leave out halfStorage)");
  }
  for (const n of half) {
    if (n.op !== "data" || (n.dtype !== "f32" && n.dtype !== "f64")) {
      throw new GraphError(`codegen: only float data leaves may be stored in 16 bits, not ${n.op} ${n.dtype}`);
    }
  }
}

/** The stored nodes a node's kernel reads: its inputs, through those computed inline (memoized). */
function storedReads(isStored: (n: Node) => boolean): (n: Node) => ReadonlySet<Node> {
  const inlined = new Map<Node, ReadonlySet<Node>>();
  const kernels = new Map<Node, ReadonlySet<Node>>();
  const through = (inputs: readonly Node[]) => new Set(inputs.flatMap((i) => [...(isStored(i) ? [i] : inline(i))]));
  const inline = (x: Node): ReadonlySet<Node> => inlined.get(x) ?? inlined.set(x, through(x.inputs)).get(x)!;
  return (n) => kernels.get(n) ?? kernels.set(n, through(n.inputs)).get(n)!;
}

function kernelFactory(
  isStored: (n: Node) => boolean, half: ReadonlySet<Node>, limits: RenderLimits, prelude: (dtypes: ReadonlySet<DType>) => string, sliced: ReadonlyMap<Node, SlicedValue>,
): KernelFactory {
  return {
    limits,
    isStored,
    sliced,
    shader: () => new ShaderBuilder(isStored, half, sliced),
    finish: (parts, shader) => assemble(parts, shader, limits, prelude),
  };
}

function renderKernels(
  node: Node,
  factory: KernelFactory,
  tupleUsers: ReadonlyMap<Node, Node[]>,
  deviceSegments: Map<string, DeviceSegments>,
  sortedIndex?: PlanOptions["sortedIndex"],
): KernelPlan[] {
  const { limits } = factory;
  if (isReduce(node.op)) {
    const x = node.inputs[0]!;
    const count = sizeOf(node.attrs.axes!.map((a) => x.shape[a]!));
    const partitions = reducePartitions(node.size, count, limits);
    if (partitions > 0) return parallelReduceKernels(node, partitions, factory);
  }
  if (node.op === "matmul") {
    const [A, B] = node.inputs as [Node, Node];
    const [n, k] = A.shape.slice(-2) as [number, number];
    const kind = matmulKernel(n, B.shape[B.rank - 1]!, k, node.size, limits);
    if (kind === "skinny") return skinnyMatmulKernels(node, factory);
    if (kind === "tiled") return tiledMatmulKernels(node, factory);
  }
  if (node.op === "cumsum") {
    const blocks = cumsumPartitions(node, factory);
    if (blocks > 0) return parallelCumsumKernels(node, blocks, factory);
  }
  if (node.op === "scatter_add" && !knownSegments(node)) return deviceScatterKernels(node, tupleUsers, factory, deviceSegments, sortedIndex);
  if (isStreamable(node, factory.isStored)) {
    const perThread = streamUnitsPerThread(node.size, limits);
    if (perThread > 1) return [streamKernel(node, perThread, factory)];
  }
  return [unitKernel(node, tupleUsers, factory)];
}

/**
 * A scatter_add whose indices are known only at run time: kernels that build its segment layout
 * on the device (shared by the scatters of one index into one size), then one thread per output
 * element over its segment. The longest segment is not known when planning here: on a driver
 * that ends long loops early (lavapipe, maxLoopIterations) a target receiving more entries than
 * that would be summed short, as any loop of that length would. Where the indices are known to
 * be sorted already (`sortedIndex`), entry s of the order is s itself: the segment loop reads the
 * rows directly, one dependent load fewer an entry.
 */
function deviceScatterKernels(
  node: Node, tupleUsers: ReadonlyMap<Node, Node[]>, f: KernelFactory, cache: Map<string, DeviceSegments>, sortedIndex?: PlanOptions["sortedIndex"],
): KernelPlan[] {
  const ind = node.inputs[1]!;
  const targets = node.shape[node.attrs.axis!]!;
  const inOrder = sortedIndex?.(ind, targets) ?? false;
  const key = `${ind.hash}|${targets}`;
  let segments = cache.get(key);
  const build: KernelPlan[] = [];
  if (!segments) {
    segments = segmentSortKernels(ind, targets, f);
    cache.set(key, segments);
    build.push(...segments.kernels);
  }
  const { order, offsets } = segments;
  const lanes = segmentLanes(ind.size, targets, f.limits.groupSize, f.limits.segmentEntriesPerLane);
  if (lanes > 1) {
    const reader = (shader: ShaderBuilder) => ({
      offset: (j: string) => `${shader.bind(offsets, "read")}[${j}]`,
      entry: (s: string) => (inOrder ? s : `${shader.bind(order, "read")}[${s}]`),
    });
    return [...build, laneScatterKernel(node, lanes, reader, f)];
  }
  const scatter = unitKernel(node, tupleUsers, f, (shader) =>
    segmentedScatterUnits(node, {
      offset: (j) => `${shader.bind(offsets, "read")}[${j}]`,
      entry: (s) => (inOrder ? s : `${shader.bind(order, "read")}[${s}]`),
    }),
  );
  return [...build, scatter];
}

// One thread per unit of the node's unit writer (or of `writerFor`'s, given the kernel's shader).
function unitKernel(node: Node, tupleUsers: ReadonlyMap<Node, Node[]>, f: KernelFactory, writerFor?: (shader: ShaderBuilder) => UnitWriter): KernelPlan {
  const shader = f.shader();
  const { r, storage } = shader;
  const ctx: UnitContext = { r, storage, scan: (s, scope) => renderScan(s, scope, ctx, tupleUsers.get(s) ?? []) };
  const writer = writerFor ? writerFor(shader) : unitWriter(node);
  const body = new Scope(undefined, "");
  writer.emit("u", body, ctx);
  const localSize = writer.units === 1 ? 1 : f.limits.localSize;
  const main = [
    `int u = gid * ${localSize} + int(gl_LocalInvocationIndex);`,
    `if (u >= ${writer.units}) return;`,
    ...body.lines,
  ];
  return f.finish({ node, localSize, workgroups: Math.ceil(writer.units / localSize), units: writer.units, main }, shader);
}
