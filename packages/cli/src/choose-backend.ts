/**
 * The CLI's side of where the sampler runs: its flags (`--backend`, `--device`, `--dtype`,
 * `--gpu-shape`, `--data-precision`, `--algorithm`) as a request to the library's placement
 * (placeRun in @ppl/ppl-vulkan, which holds the policy and names the flags in its messages), and
 * the library's PlacementError as the CLI's exit codes (usage, device).
 */
import { PlacementError, type CompiledModel, type MetricKind } from "@ppl/ppl";
import type { Placement, PlacedPlan } from "@ppl/ppl/runner";
import type { DeviceInfo, DeviceListing } from "@ppl/vulkan";
import {
  devicesForAll as placementDevicesForAll, hostTransitions, placeBackend, placeRun, precisionHint as placementHint,
  type ExecutionShape,
} from "@ppl/ppl-vulkan";
import { CliError, deviceError, ExitCode, usageError } from "./exit-codes.ts";

/** What the user asked for. */
export interface BackendRequest {
  readonly backend: "auto" | "cpu" | "vulkan";
  /** Index into listDevices(), several (chains split over them), or "all" (see devicesForAll); undefined picks the best usable device. */
  readonly device?: number | readonly number[] | "all";
  /** Float type of the density; undefined takes the backend's default (f64 on the CPU, f32 on a GPU). */
  readonly dtype?: "f32" | "f64";
  /** The metric asked for. */
  readonly metric?: MetricKind;
  /** The GPU sampler's execution shape; auto chooses from the data size. */
  readonly gpuShape?: "auto" | ExecutionShape;
  /** How the GPU stores large float data: exact (default) or rounded to 16-bit floats. */
  readonly dataPrecision?: "exact" | "f16";
}

/** The backend a run uses, and the line that tells the user why (the library's Placement). */
export type BackendChoice = Placement;

/** The placement's errors as the CLI's: a usage error (exit 2) or a device error (exit 4), the message naming the flag to change. */
function withExitCodes<T>(place: () => T): T {
  try {
    return place();
  } catch (e) {
    if (e instanceof PlacementError) throw e.kind === "usage" ? usageError(e.message) : deviceError(e.message);
    throw e;
  }
}

/** The backend from the flags and the device listing (the library's placeBackend; see there for `auto`). */
export function chooseBackend(req: BackendRequest, listing: DeviceListing): BackendChoice {
  return withExitCodes(() => placeBackend(req, listing, "flags"));
}

/** The choice for a method other than NUTS (`--algorithm hmc|chees|meads`): the library's hostTransitions. */
export function layerMethodChoice(picked: BackendChoice, algorithm: string): BackendChoice {
  return withExitCodes(() => hostTransitions(picked, algorithm, "flags"));
}

/** The devices `--device all` takes, and a note for each left out (the library's devicesForAll, naming the flags). */
export function devicesForAll(listing: DeviceListing, dtype: "f32" | "f64", backend: "auto" | "vulkan"): { readonly devices: DeviceInfo[]; readonly skipped: string[] } {
  return placementDevicesForAll(listing, dtype, backend, "flags");
}

/** `ppl sample`'s flags placed: the library's placeRun over the listing, its plan (layout, backend, device groups, the note that says why). */
export function placeSample(
  req: BackendRequest & { readonly chains: number; readonly maxDepth: number; readonly metric: MetricKind; readonly algorithm?: string; readonly model?: Pick<CompiledModel, "q" | "dataBindings"> },
  listing: DeviceListing,
): PlacedPlan {
  const { algorithm, ...request } = req;
  return withExitCodes(() => placeRun({ ...request, method: algorithm ?? "nuts", listing, spelling: "flags" }));
}

/**
 * The usage errors that the flags give whatever the model (`--device` or `--gpu-shape` with
 * `--backend cpu`, `--data-precision f16` on the CPU, `--gpu-shape` with a method other than NUTS,
 * several devices for one that takes one), found by placing the run without its model: called
 * before the model is loaded, which takes seconds and may fail on its own and hide them. A device
 * error, or one that needs the model, is left to placeSample.
 */
export function checkPlacementFlags(req: Parameters<typeof placeSample>[0], listing: DeviceListing): void {
  const { model: _model, ...flags } = req;
  try {
    placeSample(flags, listing);
  } catch (e) {
    if (e instanceof CliError && e.exitCode === ExitCode.usage) throw e;
  }
}

/** The hint for an f32 density that factorises a matrix (the library's precisionHint). */
export async function precisionHint(compiled: CompiledModel, dtype: "f32" | "f64"): Promise<string | undefined> {
  return placementHint(compiled, dtype);
}
