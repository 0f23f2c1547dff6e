/**
 * Where an approximation's batched evaluations run: on the CPU (the objective a point at a time),
 * or on a GPU as the batched gradient of the "vulkan" transition runner (@ppl/ppl-vulkan registers
 * it when imported; a plan with transitions "host" is its batched gradient alone), one device
 * submission a round. The batched gradient is built for fixed batch sizes, so the method names
 * the sizes its rounds take (Pathfinder: its paths, and its paths' ELBO draws; ADVI: its gradient's
 * and its ELBO's draws; Laplace: the Hessian's 2·dim gradients), and a round of another size is
 * padded to the next size or split into rounds of the largest.
 */
import type { CompiledModel } from "../model/compile.ts";
import { fixedBatchObjective, type BatchedObjective } from "../optimize/batched-objective.ts";
import { optimizationDensity, withoutJacobian } from "../optimize/model-objective.ts";
import type { BatchedDensity } from "../sampler/density.ts";
import { prepareTransitionRunner, transitionRunnerNames, type PreparedRunner } from "../sampler/runner-registry.ts";
import { FitError } from "./fit-error.ts";

/** Where an approximation's batched evaluations run, as approximate's options and `--backend` name it. */
export interface ApproximationBackendOptions {
  /**
   * cpu (the default); vulkan: the GPU's batched gradient (import @ppl/ppl-vulkan first); auto:
   * vulkan when it is registered and its device is a GPU, not a CPU implementation of Vulkan
   * (lavapipe, slower than the CPU backend), else cpu.
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
type DeviceRunner = PreparedRunner & { readonly device?: string; readonly deviceType?: string };

/**
 * The batched objective of a compiled model (with the log-Jacobian or without) for rounds of the
 * given sizes, where `options.backend` places it. A vulkan backend that cannot be prepared is an
 * error; auto then stays on the CPU and says why in the note.
 */
export async function approximationBackend(compiled: CompiledModel, jacobian: boolean, sizes: readonly number[], options: ApproximationBackendOptions): Promise<ApproximationBackend> {
  const backend = options.backend ?? "cpu";
  const cpu = (why: string): ApproximationBackend => ({ note: `backend: cpu (f64)${why}`, dispose() {} });
  if (backend === "cpu") return cpu(", as requested");
  if (!transitionRunnerNames().includes("vulkan")) {
    if (backend === "auto") return cpu(" — no GPU runner is registered (import @ppl/ppl-vulkan to use one)");
    throw new FitError("backend 'vulkan': no GPU runner is registered; import '@ppl/ppl-vulkan' first (importing it registers one), or use backend 'cpu'");
  }
  const dtype = options.dtype ?? "f64";
  const model = jacobian ? compiled : withoutJacobian(compiled);
  const runners: DeviceRunner[] = [];
  const dispose = (): void => runners.forEach((r) => r.dispose());
  const unique = [...new Set(sizes.map((s) => Math.max(1, Math.floor(s))))].sort((a, b) => a - b);
  try {
    for (const chains of unique) {
      const runner: DeviceRunner = await prepareTransitionRunner("vulkan", model, {
        chains, maxDepth: 10, metric: "diag", dtype, transitions: "host", ...(options.device !== undefined ? { device: options.device } : {}),
      });
      runners.push(runner);
      if (backend === "auto" && runner.deviceType === "cpu") {
        dispose();
        return cpu(` — the Vulkan device '${runner.device ?? "?"}' is a CPU implementation; the CPU backend is faster (backend 'vulkan' runs on it anyway)`);
      }
    }
  } catch (e) {
    dispose();
    if (backend === "auto") return cpu(` — the GPU's batched gradient could not be prepared (${e instanceof Error ? e.message.split("\n")[0] : String(e)})`);
    throw e;
  }
  const host = await optimizationDensity(compiled, jacobian);
  const bySize = new Map<number, BatchedDensity>(unique.map((s, i) => [s, runners[i]!.hostDensity(host)]));
  const where = runners[0]!.device ?? "the default Vulkan device";
  return {
    batched: fixedBatchObjective(bySize),
    note: `backend: vulkan (${dtype}) on ${where}: each round of ${unique.join(" or ")} points one batched evaluation on the device`,
    dispose,
  };
}
