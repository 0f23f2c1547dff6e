/**
 * Where an approximation's batched evaluations run: on the CPU (the objective a point at a time),
 * or on a GPU as the batched gradient of the "vulkan" transition runner (@ppl/ppl-vulkan registers
 * it when imported; a plan with transitions "host" is its batched gradient alone), one device
 * submission a round. The batched gradient is built for fixed batch sizes, so the method names
 * the sizes its rounds take (Pathfinder: its paths, and its paths' ELBO draws; ADVI: its gradient's
 * and its ELBO's draws; Laplace: the Hessian's 2·dim gradients), and a round of another size is
 * padded to the next size or split into rounds of the largest. Where they run is the registered
 * placement's decision (placeRun with the rounds, `batched`: one policy with `ppl sample`'s),
 * made from the device listing before any kernel is built.
 */
import type { CompiledModel } from "../model/compile.ts";
import { fixedBatchObjective, type BatchedObjective } from "../optimize/batched-objective.ts";
import { optimizationDensity, withoutJacobian } from "../optimize/model-objective.ts";
import type { BatchedDensity } from "../sampler/density.ts";
import { runPlacement, type OptionSpelling, type PlacedPlan } from "../sampler/placement.ts";
import { prepareTransitionRunner, transitionRunnerNames, type PreparedRunner } from "../sampler/runner-registry.ts";
import { FitError } from "./fit-error.ts";

/** Where an approximation's batched evaluations run, as approximate's options and `--backend` name it. */
export interface ApproximationBackendOptions {
  /**
   * cpu (the default); vulkan: the GPU's batched gradient (import @ppl/ppl-vulkan first); auto:
   * as the placement decides (import @ppl/ppl-vulkan; without it the CPU): a GPU, never a CPU
   * implementation of Vulkan, and only where the method's rounds are large enough to gain from it.
   */
  readonly backend?: "cpu" | "vulkan" | "auto";
  /** The Vulkan device's index (the runner's default device when absent). */
  readonly device?: number;
  /** Float type of the GPU's density (f64, as the CPU's; f32 where the device lacks f64). */
  readonly dtype?: "f32" | "f64";
}

/** The batched objective a run uses (absent: the CPU's), a line saying where it runs, and what gives the device back. */
export interface ApproximationBackend {
  readonly batched?: BatchedObjective;
  readonly note: string;
  /** Gives the device back (nothing on the CPU). */
  dispose(): void;
}

// The runner's device, as the GPU's runners report it (not part of every PreparedRunner).
type DeviceRunner = PreparedRunner & { readonly device?: string };

/**
 * The batched objective of a compiled model (with the log-Jacobian or without) for rounds of the
 * given sizes, where `options.backend` places it (the registered placement; `spelling` names the
 * options in its errors, PlacementError). A vulkan backend that cannot be prepared is an error;
 * auto then stays on the CPU and says why in the note.
 */
export async function approximationBackend(
  compiled: CompiledModel, jacobian: boolean, sizes: readonly number[], options: ApproximationBackendOptions, spelling: OptionSpelling = "options",
): Promise<ApproximationBackend> {
  const backend = options.backend ?? "cpu";
  const cpu = (note: string): ApproximationBackend => ({ note, dispose() {} });
  if (backend === "cpu" && options.device === undefined) return cpu("backend: cpu (f64), as requested");
  if (!transitionRunnerNames().includes("vulkan")) {
    if (backend === "auto") return cpu("backend: cpu (f64) — no GPU runner is registered (import @ppl/ppl-vulkan to use one)");
    throw new FitError(`backend '${backend}'${backend === "cpu" ? " with a device" : ""}: no GPU runner is registered; import '@ppl/ppl-vulkan' first (importing it registers one), or use backend 'cpu' without a device`);
  }
  const unique = [...new Set(sizes.map((s) => Math.max(1, Math.floor(s))))].sort((a, b) => a - b);
  const plan = runPlacement(`backend: "${backend}"`).placeRun({
    backend, ...(options.device !== undefined ? { device: options.device } : {}), dtype: options.dtype ?? "f64",
    chains: unique[unique.length - 1]!, maxDepth: 10, metric: "diag", spelling, batched: { sizes: unique, model: compiled },
  });
  if (plan.backend === "cpu") return cpu(plan.note ?? "backend: cpu (f64)");
  try {
    return await deviceBackend(compiled, jacobian, unique, plan);
  } catch (e) {
    if (backend === "auto") return cpu(`backend: cpu (f64) — the GPU's batched gradient could not be prepared (${e instanceof Error ? e.message.split("\n")[0] : String(e)})`);
    throw e;
  }
}

// The batched gradient for each round size on the plan's device, under one batched objective.
async function deviceBackend(compiled: CompiledModel, jacobian: boolean, sizes: readonly number[], plan: PlacedPlan): Promise<ApproximationBackend> {
  const model = jacobian ? compiled : withoutJacobian(compiled);
  const runners: DeviceRunner[] = [];
  const dispose = (): void => runners.forEach((r) => r.dispose());
  try {
    for (const chains of sizes) {
      runners.push(await prepareTransitionRunner("vulkan", model, {
        chains, maxDepth: plan.maxDepth, metric: plan.metric, dtype: plan.dtype, transitions: "host", ...(plan.device !== undefined ? { device: plan.device } : {}),
      }));
    }
  } catch (e) {
    dispose();
    throw e;
  }
  const host = await optimizationDensity(compiled, jacobian);
  const bySize = new Map<number, BatchedDensity>(sizes.map((s, i) => [s, runners[i]!.hostDensity(host)]));
  const where = runners[0]!.device ?? "the default Vulkan device";
  return {
    batched: fixedBatchObjective(bySize),
    note: `backend: vulkan (${plan.dtype}) on ${where}: each round of ${sizes.join(" or ")} points one batched evaluation on the device`,
    dispose,
  };
}
