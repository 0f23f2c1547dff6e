/**
 * The device facts the renderer uses, as data: codegen reads these and never asks which device
 * it is on. Built from listDevices() for a real device, or by hand in tests.
 */
export interface RenderLimits {
  /** Threads per workgroup for one-thread-per-unit kernels. */
  readonly localSize: number;
  /**
   * Units each thread of a large elementwise kernel computes, all their loads issued before any
   * arithmetic: on a GPU one load per thread leaves too few memory requests in flight to reach the
   * bandwidth (H200: 1.8 TB/s with one element per thread, 3.3 TB/s with two); 1 turns it off.
   */
  readonly unitsPerThread: number;
  /** Threads per workgroup of those multi-unit elementwise kernels. */
  readonly streamLocalSize: number;
  /** Largest workgroup count in x (larger domains spill into y). */
  readonly maxGroupCountX: number;
  /** Whether the device has shaderFloat64. */
  readonly float64: boolean;
  /** Threads per workgroup of cooperative kernels (parallel reductions, tiled matmuls). */
  readonly groupSize: number;
  /** Bytes of shared memory a workgroup may use. */
  readonly sharedMemoryBytes: number;
  /** Whether compute shaders have subgroup arithmetic (subgroupAdd, subgroupMax, …). */
  readonly subgroupArithmetic: boolean;
  /**
   * Workgroups that keep the device busy: a parallel reduction or split matmul splits its work
   * until about this many workgroups run (a few per compute unit on a GPU, a few per core on a CPU).
   */
  readonly busyGroups: number;
  /**
   * Elements each thread of a reduction split over workgroups folds, at least: more workgroups per
   * output shorten each thread's loop (a chain of dependent loads on a GPU) but add partials to merge.
   */
  readonly reduceTermsPerThread: number;
  /**
   * Iterations of a split reduction's or a segment sum's loop a thread runs at once, their loads
   * all issued before their arithmetic (strided-loop.ts): a loop that loads an index and gathers
   * by it otherwise waits two memory latencies an iteration; 1 turns it off.
   */
  readonly loopIterationsInFlight: number;
  /** Reduced elements per output below which a reduction stays one thread per output. */
  readonly parallelReduceMin: number;
  /**
   * Elements of a cumsum's line from which it is scanned in blocks over workgroups
   * (cumsum-parallel.ts) instead of walked by one thread a line.
   */
  readonly scanBlockMin: number;
  /** Multiply-adds (n·m·k) below which a matmul stays one thread per output element. */
  readonly tiledMatmulMin: number;
  /**
   * Most output columns (m of [n,k]·[k,m]) for which a larger matmul runs as the skinny kernels,
   * each thread keeping the m sums of one output row in registers; 0 leaves every large matmul to
   * the tiled kernel.
   */
  readonly skinnyMatmulColumns: number;
  /**
   * Most terms of k a skinny matmul with one thread per row stages of A's tile at a time (through
   * shared memory, when A is contiguous along k as X is in X·B): one contiguous run a subgroup
   * load, instead of one cache line a thread; each thread holds that many loads in registers.
   * 0: each thread reads its own row of A from the buffer.
   */
  readonly skinnyStageA: number;
  /**
   * Most teams (of 32 threads, or of a subgroup: rowPassSubgroup) in a workgroup of a row pass
   * (row-pass.ts: η = X·B, the rows' terms, their sums and Xᵀ·R in one kernel that reads X once);
   * 0 turns row passes off, leaving the products to the matmul kernels.
   */
  readonly rowPassTeams: number;
  /**
   * Lanes of the subgroup a row pass's team is, where the device shuffles within subgroups: each
   * row's η is summed over the team's lanes by shuffles, and the team's lanes wait for each other
   * with subgroup barriers, so the teams of a workgroup never wait for each other inside the loop.
   * 0: teams of 32 threads that sum through shared memory behind workgroup barriers.
   */
  readonly rowPassSubgroup: number;
  /**
   * Loop iterations one invocation may run in total, all loops together: llvmpipe (lavapipe)
   * silently ends every loop after 65535 (its guard against endless loops); other drivers have no limit.
   */
  readonly maxLoopIterations: number;
  /**
   * Whether storage buffers may hold 16-bit floats (storageBuffer16BitAccess): data leaves stored
   * in half precision (PlanOptions.halfStorage) are declared float16_t and need it.
   */
  readonly storage16: boolean;
  /**
   * Element-operations of recomputation a multi-kernel program accepts to save a kernel: a value
   * its consumers share (a per-chain scalar such as exp(log σ), broadcast over the data) is
   * computed inline in each of them when its inline cost times the positions they read stays
   * within this, instead of in a kernel of its own, a dispatch and a barrier earlier.
   */
  readonly recomputeBudget: number;
  /**
   * Entries of a scatter's segment each of its lanes adds at least, on average (scatter-lanes.ts):
   * more lanes an output walk shorter chains of dependent index and value loads.
   */
  readonly segmentEntriesPerLane: number;
  /** Storage buffers one shader may bind (maxPerStageDescriptorStorageBuffers): merged kernels stay within it. */
  readonly maxStorageBuffers: number;
}

/** Limits of a device as listDevices() reports them. */
export function limitsOf(device: {
  type?: string;
  driver?: string;
  limits: {
    maxComputeWorkGroupInvocations: number; maxComputeWorkGroupCount: readonly number[]; maxComputeWorkGroupSize?: readonly number[];
    maxComputeSharedMemorySize?: number; maxPerStageDescriptorStorageBuffers?: number;
  };
  features: { shaderFloat64: boolean; storageBuffer16BitAccess?: boolean };
  subgroup?: { size?: number; operations: readonly string[]; inCompute: boolean };
}): RenderLimits {
  const maxX = Math.min(device.limits.maxComputeWorkGroupInvocations, device.limits.maxComputeWorkGroupSize?.[0] ?? Infinity);
  const cpu = device.type === "cpu";
  // Power of two, so tree reductions halve evenly.
  const groupSize = 2 ** Math.floor(Math.log2(Math.min(256, maxX)));
  const lanes = shuffleLanes(device.subgroup);
  const maxLoopIterations = device.driver === "llvmpipe" ? 65535 : Infinity;
  return {
    localSize: Math.min(64, device.limits.maxComputeWorkGroupInvocations),
    // A CPU driver runs a thread's units one after the other anyway: nothing to overlap.
    unitsPerThread: cpu ? 1 : 2,
    streamLocalSize: cpu ? Math.min(64, maxX) : groupSize,
    maxGroupCountX: device.limits.maxComputeWorkGroupCount[0]!,
    float64: device.features.shaderFloat64,
    groupSize,
    // Vulkan guarantees 16 KiB; the renderers size their tiles to this.
    sharedMemoryBytes: device.limits.maxComputeSharedMemorySize ?? 16384,
    subgroupArithmetic: (device.subgroup?.inCompute ?? false) && ["arithmetic", "vote"].every((op) => device.subgroup?.operations.includes(op) ?? false),
    // A CPU driver runs a workgroup per core at a time, so a handful of groups already fills it.
    busyGroups: cpu ? 16 : 1024,
    // A GPU gives a few hundred terms a workgroup; a CPU driver runs workgroups a core at a time.
    parallelReduceMin: device.type === "cpu" ? 4096 : 256,
    // A GPU thread walking a line alone adds one term per memory round trip while the device idles.
    // A CPU core walks it faster than the blocks' three passes over it (lavapipe, 2 cores, 4 lines
    // of 20k: 2.1 ms a line a thread, 4.5 ms in blocks), up to its loop budget (half of
    // maxLoopIterations, as a reduction's): a longer line in one thread would be cut short there.
    scanBlockMin: cpu ? Math.floor(maxLoopIterations / 2) + 1 : 256,
    // A second workgroup per output costs its last one an atomic count and a read of the partials
    // from L2: on an H200 the hierarchical gradient's three sums over 2000 group effects took 5.2 µs
    // as two workgroups each (4 terms a thread) and 3.5 µs as one (8). Its six sums over 100k rows
    // took the same from 16 to 2 terms a thread, and longer with 1 (H200, bench/RESULTS.md).
    reduceTermsPerThread: 8,
    // A CPU driver runs a thread's iterations one after the other anyway: nothing to overlap.
    loopIterationsInFlight: cpu ? 1 : 8,
    tiledMatmulMin: 1 << 18,
    skinnyMatmulColumns: 16,
    // A GPU dispatch and its barrier cost 2–3 µs, the time of tens of millions of operations
    // (an H200 or H100 does about 2^26 in 2 µs); a CPU driver's cost about as much as a few
    // thousand. Measured on an H100 (hier's gradient, 4 chains): 2^24 stored its row terms twice
    // over, 4 dispatches in 29.3 µs; 2^25, 3 in 24.0; 2^26 recomputes them in every reader, 2
    // dispatches in 20.4 µs (2^30 the same plan, 20.1); the logistic regressions' plans do not move.
    recomputeBudget: cpu ? 1 << 14 : 1 << 26,
    // Measured on an H200 (N=100k, D=100, 4 chains): X·B in 25 µs unstaged, 20 µs in blocks of 8,
    // 25 µs in blocks of 16 or 32 (more registers a thread, fewer workgroups resident at once).
    skinnyStageA: 8,
    // Measured on an H200 (N=100k, D=100, 4 chains): teams through shared memory (105 registers a
    // thread), the pass in 25 µs with 2 teams a workgroup, 33 with 4, 50 with 8 (teams wait for
    // each other at every step); subgroup teams, which do not, 24.6 with 2, 21.5 with 4, 27 with 8.
    rowPassTeams: lanes > 0 ? 4 : 2,
    rowPassSubgroup: lanes,
    maxLoopIterations,
    segmentEntriesPerLane: 6,
    storage16: device.features.storageBuffer16BitAccess ?? false,
    // Unreported: lavapipe's 32, well above Vulkan's guaranteed 4 and what one kernel of its own binds.
    maxStorageBuffers: device.limits.maxPerStageDescriptorStorageBuffers ?? 32,
  };
}

// A subgroup's lanes where its invocations can shuffle (a power of two from 4 to 64), else 0.
function shuffleLanes(subgroup: { size?: number; operations: readonly string[]; inCompute: boolean } | undefined): number {
  const size = subgroup?.size ?? 0;
  const ops = subgroup?.operations ?? [];
  const usable = (subgroup?.inCompute ?? false) && ops.includes("basic") && ops.includes("shuffle");
  return usable && size >= 4 && size <= 64 && (size & (size - 1)) === 0 ? size : 0;
}
