/**
 * `--backend`, `--device` and `--dtype` of `ppl pathfinder`, `ppl variational` and `ppl laplace`:
 * where the method's batched evaluations run (Pathfinder's rounds of its paths' line searches and
 * ELBO draws, ADVI's Monte Carlo draws, the Laplace Hessian's gradients and the draws' densities).
 * The backend is chosen as `ppl sample` chooses it (choose-backend.ts: `auto` takes a GPU, never a
 * CPU implementation of Vulkan), in f64 unless --dtype says otherwise; on a GPU the library's
 * approximationBackend builds the batched gradient for the method's round sizes.
 */
import { approximationBackend, roundSizes, type ApproximateOptions } from "@ppl/ppl";
import type { ApproximationModel } from "./approximation-run.ts";
import { chooseBackend } from "./choose-backend.ts";
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

/** The model with its batched objective placed, the line that says where (absent on the CPU by `auto`'s own choice), and what gives the device back. */
export interface PlacedApproximation {
  readonly model: ApproximationModel;
  readonly note?: string;
  dispose(): void;
}

/** Places a method's batched evaluations as the flags ask; a GPU that cannot be used is a device error (exit 4). */
export async function placeApproximation(flags: ApproximationBackendFlags, m: ApproximationModel, jacobian: boolean, options: ApproximateOptions, io: CommandIO, quiet: boolean): Promise<PlacedApproximation> {
  const device = flags.device;
  if (device === "all" || typeof device === "object") {
    throw usageError(`--device: ppl ${options.method} evaluates its batches on one device; give one index (see \`ppl devices\`)`);
  }
  const dtype = flags.dtype ?? "f64";
  const backend = flags.backend ?? "auto";
  // @ppl/vulkan (and its native addon) is loaded only when Vulkan is an option.
  const vulkan = backend === "cpu" ? undefined : await import("@ppl/vulkan");
  const listing = vulkan === undefined ? { devices: [], reason: null } : vulkan.listDevices();
  const choice = chooseBackend({ backend, dtype, ...(device !== undefined ? { device } : {}) }, listing);
  const info = (line: string): void => {
    if (!quiet) io.stderr.write(line + "\n");
  };
  const picked = choice.device === null ? undefined : listing.devices.find((d) => d.index === choice.device);
  if (choice.backend === "cpu" || picked === undefined) {
    if (backend === "cpu") info(choice.note);
    return { model: m, dispose() {} };
  }
  if (dtype === "f64" && !picked.features.shaderFloat64) {
    if (backend === "vulkan") throw deviceError(`Vulkan device ${picked.index} '${picked.name}' has no shaderFloat64; use --dtype f32`);
    info(`backend: cpu (f64) — Vulkan device ${picked.index} '${picked.name}' has no shaderFloat64 (--dtype f32 runs on it in f32)`);
    return { model: m, dispose() {} };
  }
  // Importing the GPU sampler registers its batched gradient as the "vulkan" runner.
  await import("@ppl/ppl-vulkan");
  let placed;
  try {
    placed = await approximationBackend(m.compiled, jacobian, roundSizes(options, m.compiled.dim), { backend: "vulkan", device: picked.index, dtype });
  } catch (e) {
    throw deviceError(`the Vulkan device could not evaluate the model's batched gradient: ${firstLine(e)}; use --backend cpu`);
  }
  info(placed.note);
  return { model: { ...m, ...(placed.batched !== undefined ? { batched: placed.batched } : {}) }, note: placed.note, dispose: () => placed.dispose() };
}
