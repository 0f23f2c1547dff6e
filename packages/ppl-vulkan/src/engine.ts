import type { CompiledModel } from "@ppl/ppl";
import type { Node } from "@ppl/tensor";
import type { VulkanBuffer } from "@ppl/vulkan";
import type { StateBufferName } from "./nuts-layout.ts";

/** The parts of a compiled model the GPU sampler needs. */
export type GpuModel = Pick<CompiledModel, "logDensity" | "q" | "dataBindings">;

/** The sampler's buffers 0–7 (nuts-layout.ts's STATE_BUFFERS), shared by every execution shape. */
export type StateBuffers = Readonly<Record<StateBufferName, VulkanBuffer>>;

export { stepSizeLayout } from "./nuts-layout.ts";

/** What an engine has submitted and waited for (Engine.counters). */
export interface EngineCounters {
  submits: number;
  steps: number;
  sequences: number;
  recordSeconds: number;
  waitSeconds: number;
  longestWaitSeconds: number;
  longestWaitSteps: number;
  /** Sampling blocks started while the host still recorded the block before (runAsync). */
  blocksAhead: number;
  /**
   * Device shape: the steps each block needed, its slowest chain's leapfrogs and the call that
   * ends them; `steps` beyond these ran with every chain of the block done.
   */
  neededSteps: number;
}

/** Counters at zero. */
export function newCounters(): EngineCounters {
  return { submits: 0, steps: 0, sequences: 0, recordSeconds: 0, waitSeconds: 0, longestWaitSeconds: 0, longestWaitSteps: 0, blocksAhead: 0, neededSteps: 0 };
}

/** Adds one wait for the device, begun at `t0` (performance.now()), that ran `steps` steps. */
export function noteWait(counters: EngineCounters, t0: number, steps: number): void {
  const seconds = (performance.now() - t0) / 1e3;
  counters.waitSeconds += seconds;
  if (seconds > counters.longestWaitSeconds) {
    counters.longestWaitSeconds = seconds;
    counters.longestWaitSteps = steps;
  }
}

/** One part of a profiled NUTS kernel's calls (profile.ts), over every chain and call. */
export interface KernelProfilePart {
  readonly part: string;
  /** The leader's cycles in this part, averaged over all calls (those that skipped it count 0). */
  readonly cyclesPerCall: number;
  /** Calls in which the part ran, as a share of all calls. */
  readonly share: number;
}

/** Where a profiled kernel's calls (controller calls, or the fused shapes' leapfrogs) spent their cycles, part by part, and how many calls there were. */
export interface KernelProfile {
  readonly calls: number;
  readonly parts: readonly KernelProfilePart[];
}

/**
 * Runs blocks of iterations on the device: `run(k)` advances every chain by k transitions, and
 * `runAsync(k)` does the same while waiting for the device off the main thread, so that engines
 * on several devices run their blocks at the same time.
 */
export interface Engine {
  readonly source: string;
  /** The data leaves its kernels read from float16_t buffers (dataPrecision "f16"). */
  readonly half: ReadonlySet<Node>;
  run(k: number): void;
  runAsync(k: number): Promise<void>;
  /** The stats of the block just run (k transitions × C chains × TRANSITION_STATS), for an engine that plans the next block by them. */
  blockDone?(stats: ArrayLike<number>, k: number): void;
  /**
   * Submissions and the controller + gradient steps they ran (device shape; zero otherwise), and
   * the command sequences recorded: one per block size, reused by every submission of that size;
   * recordSeconds is the host time spent recording them, waitSeconds the time from a submission to
   * its completion (the device's work and the wait for its fence), the batched logpGrad's included;
   * longestWaitSeconds is the longest single wait and longestWaitSteps the steps it ran (0 for a
   * batched logpGrad), to tell a slow run's one long wait from waits all a little longer.
   */
  readonly counters: EngineCounters;
  /** Built with `profile`: where the controller's calls (device shape) or the fused transition's leapfrogs spent their cycles (profile.ts). */
  readonly profile?: () => KernelProfile;
  /** lp and gradient of all chains at once on the device, where the shape has batched kernels. */
  readonly logpGrad?: (q: Float64Array, lp: Float64Array, grad: Float64Array) => void;
  dispose(): void;
}
