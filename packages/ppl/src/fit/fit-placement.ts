/**
 * Where sample(model, data, options) runs: on the CPU by default, or placed as `ppl sample` places
 * a run (`backend`, `device`, `dtype`) by the placement policy that importing @ppl/ppl-vulkan
 * registers (its placeRun and prepareRun), so that the same request gets the same backend, device,
 * float type and start on the CPU as the command's flags.
 */
import { modelDensity, type ModelDensity } from "../density/model-density.ts";
import type { CompiledModel } from "../model/compile.ts";
import type { PendingRunner } from "../sampler/options.ts";
import { placedSampleOptions, runPlacement, type BackendRequest, type PlacedPlan } from "../sampler/placement.ts";
import type { PendingRunnerDecision } from "../sampler/result.ts";
import type { PreparedRunner } from "../sampler/runner-registry.ts";
import { resolveSettings, type SettingsOptions } from "../sampler/settings.ts";

/** Where sample(model, data, options) runs. */
export interface FitPlacementOptions {
  /**
   * "cpu" (the default), "auto" (a GPU where one is worth it, starting on the CPU while its
   * sampler is prepared, as `ppl sample --backend auto`) or "vulkan". Any but the CPU in f64 is
   * placed by @ppl/ppl-vulkan, which must be imported (it registers the placement).
   */
  readonly backend?: BackendRequest;
  /** The Vulkan device by index, several (the chains split over them), or "all"; none: the best usable one. */
  readonly device?: number | readonly number[] | "all";
  /** Float type of the density (the backend's default: f64 on the CPU, f32 on a GPU). */
  readonly dtype?: "f32" | "f64";
  /** Called once the run is placed, with its plan (plan.note says where and why), before it samples. */
  readonly onPlaced?: (plan: PlacedPlan) => void;
  /** With a run that started on the CPU and may move to the GPU: where it went, and what it measured. */
  readonly onPendingDecision?: (decision: PendingRunnerDecision) => void;
}

/** A run of sample(model, data) where it was placed: its density and the sampler's placement options. */
export interface FitRun {
  readonly density: ModelDensity;
  readonly options: { threads: number; transitionRunner?: PreparedRunner; pendingRunner?: PendingRunner };
  /** Releases the device, if any. */
  dispose(): void;
}

/** Opens the run where `placement` asks: the CPU's density as before, or the registered placement's plan prepared. */
export async function openFitRun(compiled: CompiledModel, settings: SettingsOptions, placement: FitPlacementOptions, threads: number): Promise<FitRun> {
  const { backend, device, dtype, onPlaced, onPendingDecision } = placement;
  if (backend === undefined || (backend === "cpu" && device === undefined && dtype !== "f32")) {
    return { density: await modelDensity(compiled, { backend: "cpu" }), options: { threads }, dispose: () => undefined };
  }
  const placer = runPlacement(`backend: "${backend}"`);
  const resolved = resolveSettings({ ...settings, seed: settings.seed ?? 0 });
  const plan = placer.placeRun({
    backend,
    ...(device !== undefined ? { device } : {}),
    ...(dtype !== undefined ? { dtype } : {}),
    chains: resolved.chains,
    maxDepth: resolved.maxDepth,
    metric: resolved.metric,
    method: methodName(settings),
    model: compiled,
  });
  onPlaced?.(plan);
  const prepared = await placer.prepareRun(compiled, plan);
  return {
    density: prepared.density,
    options: placedSampleOptions(prepared, threads, onPendingDecision !== undefined ? { onDecision: onPendingDecision } : {}),
    dispose: () => prepared.dispose(),
  };
}

// The run's method by name, as placement reads it: NUTS, or any other (its transitions on the host).
function methodName(settings: SettingsOptions): string {
  const method = settings.method;
  if (method !== undefined) return typeof method === "string" ? method : method.name;
  return settings.sampler ?? "nuts";
}
