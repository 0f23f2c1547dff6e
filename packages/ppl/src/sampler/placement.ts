/**
 * Where a run samples, as data: what a caller asks (a PlacementRequest: the backend, devices, float
 * type, GPU shape), the plan placement makes of it (a PlacedPlan: the run's layout with its backend,
 * its groups of chains per device and the line that says why), and the run prepared from that plan
 * (a PreparedRun). The policy itself lives in the package that sees both the CPU and the GPU
 * (@ppl/ppl-vulkan's placeRun and prepareRun), which registers it here when imported, so that this
 * package's callers (sample(model, data, { backend: "auto" })) place a run as `ppl sample` does.
 */
import type { CompiledModel } from "../model/compile.ts";
import type { ModelDensity } from "../density/model-density.ts";
import { SamplerOptionError } from "./errors.ts";
import type { MetricKind } from "./metric.ts";
import type { PendingRunner, ReadyRunner } from "./options.ts";
import type { PendingRunnerDecision } from "./result.ts";
import type { PreparedRunner } from "./runner-registry.ts";
import type { RunPlan } from "./transition-runner.ts";

/** Where a run may sample: "auto" (a GPU when one is worth it, else the CPU), "cpu" or "vulkan". */
export type BackendRequest = "auto" | "cpu" | "vulkan";

/**
 * How placement's messages name what to change: as `ppl sample`'s flags (`--backend vulkan`) or
 * as the library's options (`backend: "vulkan"`).
 */
export type OptionSpelling = "flags" | "options";

/** What a caller asks of placement. */
export interface PlacementRequest {
  /** "auto" (the default) takes a usable GPU and leaves a CPU implementation of Vulkan alone. */
  readonly backend?: BackendRequest;
  /** Index into the device listing, several (the chains split over them), or "all"; none: the best usable device. */
  readonly device?: number | readonly number[] | "all";
  /** Float type of the density; none: the backend's default (f64 on the CPU, f32 on a GPU). */
  readonly dtype?: "f32" | "f64";
  /** The GPU sampler's execution shape ("thread", "workgroup", "device"); "auto" chooses from the data size. */
  readonly gpuShape?: string;
  /** How the GPU stores large float data: "exact" (default) or rounded to 16-bit floats. */
  readonly dataPrecision?: "exact" | "f16";
  /** The run's sampling method by name ("nuts", the default): any other takes its transitions on the host. */
  readonly method?: string;
}

/**
 * The rounds of an approximation (Pathfinder, ADVI, Laplace): a method that evaluates its points
 * in batches, its controller on the host, each round one evaluation of a batched gradient.
 */
export interface BatchedRounds {
  /** The points of each size of round the method evaluates at once (a batched gradient is built for each). */
  readonly sizes: readonly number[];
  /** The model the rounds evaluate: its data's and parameters' elements are one point's work. */
  readonly model: Pick<CompiledModel, "q" | "dataBindings">;
}

/** A run's layout and what it asks of placement: placeRun's input. */
export interface PlaceRunOptions extends PlacementRequest {
  readonly chains: number;
  readonly maxDepth: number;
  readonly metric: MetricKind;
  /** How the messages name options (default "options"). */
  readonly spelling?: OptionSpelling;
  /**
   * Set for an approximation: its rounds of batched evaluations (the plan then has transitions
   * "host" on a GPU, in f64 unless dtype says otherwise), which `auto` takes to a GPU on its own
   * only where every round is large enough to gain from it (placeRun's rule).
   */
  readonly batched?: BatchedRounds;
  /**
   * The model a method other than NUTS evaluates (its data's and parameters' elements, one chain's
   * work): given, `auto` keeps a GPU it took on its own only where a round of every chain's
   * gradient is large enough to gain from it, as for an approximation's rounds.
   */
  readonly model?: BatchedRounds["model"];
}

/** Where placement put a run, and the line that tells the user why. */
export interface Placement {
  readonly backend: "cpu" | "vulkan";
  readonly dtype: "f32" | "f64";
  /** Index of the Vulkan device used (the first of several), or null on the CPU. */
  readonly device: number | null;
  /** Every device the chains are split over, when there are several (one manager each; an index may repeat). */
  readonly devices?: readonly number[];
  /** One line for the log (several with notes on devices left out): which backend and why. */
  readonly note: string;
  /**
   * Set when `auto` took a GPU on its own (no device, shape or 16-bit data asked for): the run
   * starts on the CPU backend in this float type while the GPU's sampler is prepared, and moves
   * there once it is ready and measures faster.
   */
  readonly cpuFallback?: { readonly dtype: "f32" | "f64" };
}

/** A group of consecutive chains on one device: the plan's split of a run over several devices. */
export interface DeviceGroup {
  readonly device: number;
  readonly chains: number;
}

/** A run's layout and where it runs: what placeRun returns and prepareRun prepares. */
export interface PlacedPlan extends RunPlan {
  readonly backend: "cpu" | "vulkan";
  /** Every device the chains are split over, when there are several (one manager each; an index may repeat). */
  readonly devices?: readonly number[];
  /** With several devices: each one's group of consecutive chains (the one split every runner takes). */
  readonly groups?: readonly DeviceGroup[];
  /** As Placement.cpuFallback: the run starts on the CPU backend in this float type and may move to the GPU. */
  readonly cpuFallback?: { readonly dtype: "f32" | "f64" };
  /** Which backend and why, for the log. */
  readonly note?: string;
}

/** The GPU's sampler once prepared, for a run that started on the CPU. */
export interface PendingGpu {
  readonly ready: ReadyRunner;
  /** The log's lines about the kernel (as PreparedRun.detail). */
  readonly detail: string;
  readonly warning?: string;
}

/** A placed run: the density the sampler evaluates, and on a GPU the runner that takes its transitions there. */
export interface PreparedRun {
  readonly density: ModelDensity;
  /** The prepared runner (SampleOptions.transitionRunner): the run takes its chains, depth and metric from its plan. */
  readonly transitionRunner?: PreparedRunner;
  /**
   * With plan.cpuFallback: starts preparing the GPU's sampler (once; later calls return the same
   * promise). The run starts on `density` (the CPU backend, in cpuFallback's float type), calls
   * this once its work left is long enough to gain from a GPU, and moves to the GPU once it is
   * ready and measures faster (SampleOptions.pendingRunner).
   */
  readonly pendingGpu?: () => Promise<PendingGpu>;
  /** Lines for the log: the GPU kernel's execution shape, and any note on the float type. */
  readonly detail?: string;
  /** A line the user must see: a layout that may return wrong draws on this device. */
  readonly warning?: string;
  /** Releases the device; with a GPU still being prepared, once it is ready (a GPU never started needs nothing). */
  dispose(): void;
}

/**
 * A request placement cannot honour. `kind` says what to change: "usage", the options themselves
 * (an option that has no meaning with another); "device", the devices (none usable, or one that
 * lacks a feature the run needs). The message names the option to change.
 */
export class PlacementError extends SamplerOptionError {
  readonly kind: "usage" | "device";
  constructor(kind: "usage" | "device", message: string) {
    super(message);
    this.name = "PlacementError";
    this.kind = kind;
  }
}

/** The placement policy a package provides: a plan for a request, and the run prepared from a plan. */
export interface RunPlacement {
  /** Decides where a run samples (backend, devices, float type, shape) from what the caller asks and the devices there are. */
  placeRun(options: PlaceRunOptions): PlacedPlan;
  /** Builds the placed run's density and transition runner (or the pending GPU of a run that starts on the CPU). */
  prepareRun(model: CompiledModel, plan: PlacedPlan): Promise<PreparedRun>;
}

let registered: RunPlacement | null = null;

/** Registers the placement policy (importing @ppl/ppl-vulkan does); a later registration replaces an earlier one. */
export function registerRunPlacement(placement: RunPlacement): void {
  registered = placement;
}

/** The registered placement policy, or a SamplerOptionError naming the package to import for `option`. */
export function runPlacement(option: string): RunPlacement {
  if (registered === null) {
    throw new SamplerOptionError(`${option}: placing a run on a backend is @ppl/ppl-vulkan's, which registers it when imported: add import "@ppl/ppl-vulkan" (or leave backend out to sample on the CPU)`);
  }
  return registered;
}

/** The plan's run layout alone (chains, depth, metric, dtype, device, shape, data precision, transitions): what one runner is prepared for. */
export function runLayout(plan: PlacedPlan): RunPlan {
  const { backend: _backend, devices: _devices, groups: _groups, cpuFallback: _fallback, note: _note, ...layout } = plan;
  return layout;
}

/** What a caller hears of a run that may move to the GPU: the GPU's sampler once ready, and the decision. */
export interface PendingGpuHooks {
  /** The GPU's sampler was prepared (before the decision to move to it or not). */
  onPrepared?(gpu: PendingGpu): void;
  /** Where the run went, and what it measured. */
  onDecision?(decision: PendingRunnerDecision): void;
}

/**
 * The sampleAsync options that run a prepared run where it was placed: its transition runner (one
 * thread: the runner advances every chain), or the start on the CPU backend on `threads` threads
 * with the move to the GPU once its sampler is ready and measures faster.
 */
export function placedSampleOptions(prepared: PreparedRun, threads: number, hooks: PendingGpuHooks = {}): { threads: number; transitionRunner?: PreparedRunner; pendingRunner?: PendingRunner } {
  if (prepared.transitionRunner !== undefined) return { threads: 1, transitionRunner: prepared.transitionRunner };
  const pendingGpu = prepared.pendingGpu;
  if (pendingGpu === undefined) return { threads };
  return {
    threads,
    pendingRunner: {
      ready: () => pendingGpu().then((gpu) => {
        hooks.onPrepared?.(gpu);
        return gpu.ready;
      }),
      ...(hooks.onDecision !== undefined ? { onDecision: hooks.onDecision } : {}),
    },
  };
}
