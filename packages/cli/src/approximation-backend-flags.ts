/**
 * `--backend`, `--device` and `--dtype` of `ppl pathfinder`, `ppl variational` and `ppl laplace`
 * (and of `ppl sample --init pathfinder`'s paths), mapped onto the library's placement and its
 * errors onto exit codes: where the method's batched evaluations run (Pathfinder's rounds of its
 * paths' line searches and ELBO draws, ADVI's Monte Carlo draws, Laplace's mode search, its
 * Hessian's gradients and the draws' densities). The library's approximationBackend
 * (fit/approximation-placement.ts) places them by the registered placement (placeRun with the
 * method's rounds: `auto` takes a GPU, never a CPU implementation of Vulkan, and only where the
 * rounds are large enough to gain from it), in f64 unless --dtype says otherwise, and on a GPU
 * builds the batched gradient for the method's round sizes.
 */
import { approximationBackend, PlacementError, roundSizes, type ApproximateOptions } from "@ppl/ppl";
// Importing the placement registers it (placeRun) and the GPU's batched gradient as the "vulkan" runner.
import "@ppl/ppl-vulkan";
import type { ApproximationModel } from "./approximation-run.ts";
import { deviceError, usageError } from "./exit-codes.ts";
import type { CommandIO } from "./io.ts";
import { firstLine } from "./load-model.ts";

/** The options the approximation commands take for where they run. */
export interface ApproximationBackendFlags {
  /** auto when absent, as on the command line. */
  readonly backend?: "auto" | "cpu" | "vulkan";
  readonly device?: number | readonly number[] | "all";
  readonly dtype?: "f32" | "f64";
}

/** What is placed: a compiled model's objective (an ApproximationModel, or the target `ppl sample --init pathfinder` builds). */
type Placeable = Pick<ApproximationModel, "compiled" | "objective" | "batched">;

/** The model with its batched objective placed, the line that says where it runs on a GPU (absent on the CPU), and what gives the device back. */
export interface PlacedApproximation<M extends Placeable = ApproximationModel> {
  readonly model: M;
  readonly note?: string;
  dispose(): void;
}

/** Places a method's batched evaluations as the flags ask; a GPU that cannot be used is a device error (exit 4). */
export async function placeApproximation<M extends Placeable>(flags: ApproximationBackendFlags, m: M, jacobian: boolean, options: ApproximateOptions, io: CommandIO, quiet: boolean): Promise<PlacedApproximation<M>> {
  const device = flags.device;
  if (device === "all" || typeof device === "object") {
    throw usageError(`--device: ppl ${options.method} evaluates its batches on one device; give one index (see \`ppl devices\`)`);
  }
  const backend = flags.backend ?? "auto";
  const request = { backend, ...(device !== undefined ? { device } : {}), ...(flags.dtype !== undefined ? { dtype: flags.dtype } : {}) };
  let placed;
  try {
    placed = await approximationBackend(m.compiled, jacobian, roundSizes(options, m.compiled.dim), request, "flags");
  } catch (e) {
    if (e instanceof PlacementError) throw e.kind === "usage" ? usageError(e.message) : deviceError(e.message);
    throw deviceError(`the Vulkan device could not evaluate the model's batched gradient: ${firstLine(e)}; use --backend cpu`);
  }
  if (!quiet) io.stderr.write(placed.note + "\n");
  if (placed.batched === undefined) return { model: m, dispose() {} };
  return { model: { ...m, batched: placed.batched }, note: placed.note, dispose: () => placed.dispose() };
}
