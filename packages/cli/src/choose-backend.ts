/**
 * The CLI's side of where the sampler runs: `--backend`, `--device`, `--dtype`, `--gpu-shape` and
 * `--data-precision` against the device listing, to a plan with the line that tells the user why
 * (and the errors that name the flag to change). The library's prepareRun (@ppl/ppl-vulkan) then
 * places the run as planned.
 */
import type { CompiledModel } from "@ppl/ppl";
import type { RunPlan } from "@ppl/ppl/runner";
import type { DeviceInfo, DeviceListing } from "@ppl/vulkan";
// The GPU sampler (@ppl/ppl-vulkan) is imported where a run needs it, so that --backend cpu starts without it.
import type { ExecutionShape, PendingGpu, PreparedRun } from "@ppl/ppl-vulkan";
import { deviceError, usageError } from "./exit-codes.ts";

/** What the user asked for. */
export interface BackendRequest {
  readonly backend: "auto" | "cpu" | "vulkan";
  /** Index into listDevices(), several (chains split over them), or "all" (see devicesForAll); undefined picks the best usable device. */
  readonly device?: number | readonly number[] | "all";
  /** Float type of the density; undefined takes the backend's default (f64 on the CPU, f32 on a GPU). */
  readonly dtype?: "f32" | "f64";
  /** The metric asked for. */
  readonly metric?: "diag" | "dense";
  /** The GPU sampler's execution shape; auto chooses from the data size. */
  readonly gpuShape?: "auto" | ExecutionShape;
  /** How the GPU stores large float data: exact (default) or rounded to 16-bit floats. */
  readonly dataPrecision?: "exact" | "f16";
}

/** The backend a run uses, and the line that tells the user why. */
export interface BackendChoice {
  readonly backend: "cpu" | "vulkan";
  readonly dtype: "f32" | "f64";
  /** Index of the Vulkan device used (the first of several), or null on the CPU. */
  readonly device: number | null;
  /** Every device the chains are split over, when there are several (one manager each; an index may repeat). */
  readonly devices?: readonly number[];
  /** One line for stderr: which backend and why. */
  readonly note: string;
  /**
   * Set when `auto` took a GPU on its own (no --device, --gpu-shape or --data-precision f16): the
   * run may then move to the CPU backend, in this float type, when it measures the CPU faster.
   */
  readonly cpuFallback?: { readonly dtype: "f32" | "f64" };
}

/**
 * Picks the backend from the request and the device listing. `auto` takes a Vulkan GPU when one is
 * usable; a CPU implementation of Vulkan (lavapipe) is slower than the native CPU backend and
 * stops shader loops after 65,535 iterations, so `auto` leaves it alone (`--backend vulkan` uses it).
 * Throws a device error (exit 4) when Vulkan is requested and cannot be used, and a usage error
 * for --device with --backend cpu or for a metric the GPU sampler lacks.
 */
export function chooseBackend(req: BackendRequest, listing: DeviceListing): BackendChoice {
  const choice = chooseBackendFor(req, listing);
  if (req.dataPrecision === "f16") checkDataPrecision(choice, listing);
  return choice;
}

// --data-precision f16 rounds the data a GPU stores: a run on the CPU, or on a device without
// 16-bit storage, cannot honour it, and says so rather than quietly running exact.
function checkDataPrecision(choice: BackendChoice, listing: DeviceListing): void {
  if (choice.backend === "cpu") {
    throw usageError("--data-precision f16 stores data in 16 bits on a GPU, and this run is on the CPU backend: drop --data-precision f16, or use --backend vulkan");
  }
  for (const index of choice.devices ?? [choice.device!]) {
    const d = listing.devices[index]!;
    if (d.features.storageBuffer16BitAccess !== true) {
      throw deviceError(`Vulkan device ${d.index} '${d.name}' lacks 16-bit storage (storageBuffer16BitAccess), which --data-precision f16 needs: drop --data-precision f16`);
    }
  }
}

function chooseBackendFor(req: BackendRequest, listing: DeviceListing): BackendChoice {
  if (req.backend === "cpu") {
    const dtype = req.dtype ?? "f64";
    if (req.device !== undefined) throw usageError("--device selects a Vulkan device; it has no meaning with --backend cpu");
    if (req.gpuShape !== undefined && req.gpuShape !== "auto") throw usageError("--gpu-shape lays the sampler out on a GPU; it has no meaning with --backend cpu");
    return { backend: "cpu", dtype, device: null, note: `backend: cpu (${dtype}), as requested` };
  }
  const usable = listing.devices.filter((d) => d.rejected === null);
  if (req.device === "all" || typeof req.device === "object") return chooseDevices(req, req.device, listing);
  const picked = pickDevice(req.device, listing, usable);
  if (req.backend === "vulkan") {
    if (typeof picked === "string") throw deviceError(`--backend vulkan: ${picked}; use --backend cpu`);
    const dtype = req.dtype ?? "f32";
    if (dtype === "f64" && !picked.features.shaderFloat64) {
      throw deviceError(`Vulkan device ${picked.index} '${picked.name}' has no shaderFloat64; use --dtype f32`);
    }
    return { backend: "vulkan", dtype, device: picked.index, note: `backend: vulkan (${dtype}) on device ${picked.index} '${picked.name}', as requested` };
  }
  const dtype = req.dtype ?? "f64";
  let why: string;
  if (typeof picked === "string") why = picked;
  else if (picked.type === "cpu") why = `Vulkan device ${picked.index} '${picked.name}' is a CPU implementation; the CPU backend is faster (use --backend vulkan to run on it anyway)`;
  else {
    const gpuDtype = req.dtype ?? "f32";
    const pinned = req.device !== undefined || (req.gpuShape !== undefined && req.gpuShape !== "auto") || req.dataPrecision === "f16";
    return {
      backend: "vulkan",
      dtype: gpuDtype,
      device: picked.index,
      note: `backend: vulkan (${gpuDtype}) on device ${picked.index} '${picked.name}' (${picked.type} GPU)`,
      ...(pinned ? {} : { cpuFallback: { dtype } }),
    };
  }
  return { backend: "cpu", dtype, device: null, note: `backend: cpu (${dtype}) — ${why}` };
}

/**
 * The choice for a method other than NUTS (`--algorithm hmc|chees|meads`): on a GPU its controller
 * runs on the host over the batched gradient of one device, from the start (the measured start on
 * the CPU is the GPU NUTS runner's, so no cpuFallback); several devices are a usage error.
 */
export function layerMethodChoice(picked: BackendChoice, algorithm: string): BackendChoice {
  if (picked.backend !== "vulkan") return picked;
  if (picked.devices !== undefined && picked.devices.length > 1) {
    throw usageError(`--algorithm ${algorithm} evaluates its chains' gradients on one device; give --device one index (not ${picked.devices.join(",")})`);
  }
  const { cpuFallback: _fallback, devices: _devices, ...choice } = picked;
  return { ...choice, note: `${picked.note}; --algorithm ${algorithm}: its transitions on the host, each round of all chains' gradients one batched evaluation on the device` };
}

/** The devices `--device all` takes: every usable one with the features the run needs (shaderFloat64 for f64; with --backend auto, GPUs only), and a note for each left out. */
export function devicesForAll(listing: DeviceListing, dtype: "f32" | "f64", backend: "auto" | "vulkan"): { readonly devices: DeviceInfo[]; readonly skipped: string[] } {
  const devices: DeviceInfo[] = [];
  const skipped: string[] = [];
  for (const d of listing.devices) {
    if (d.rejected !== null) skipped.push(`note: --device all skips device ${d.index} '${d.name}': ${d.rejected}`);
    else if (dtype === "f64" && !d.features.shaderFloat64) skipped.push(`note: --device all skips device ${d.index} '${d.name}': it has no shaderFloat64, which --dtype f64 needs`);
    else if (backend === "auto" && d.type === "cpu") skipped.push(`note: --device all skips device ${d.index} '${d.name}': a CPU implementation of Vulkan (--backend vulkan takes it)`);
    else devices.push(d);
  }
  return { devices, skipped };
}

// Several devices (a list, or all): the chains are split over them, one manager each. A list is
// taken as given, as --backend vulkan takes its device; `all` under --backend auto takes the GPUs
// and leaves the CPU backend when there are none.
function chooseDevices(req: BackendRequest, which: readonly number[] | "all", listing: DeviceListing): BackendChoice {
  const dtype = req.dtype ?? "f32";
  const where = req.backend === "vulkan" ? "--backend vulkan" : "--device";
  let devices: DeviceInfo[];
  let notes: string[] = [];
  if (which === "all") {
    const found = devicesForAll(listing, dtype, req.backend === "vulkan" ? "vulkan" : "auto");
    devices = found.devices;
    notes = found.skipped;
    if (devices.length === 0) {
      const why = listing.devices.length === 0 ? noDeviceReason(listing) : `no device qualifies (${found.skipped.map((n) => n.replace(/^note: --device all skips /, "")).join("; ")})`;
      if (req.backend === "vulkan") throw deviceError(`--device all: ${why}; use --backend cpu${dtype === "f64" ? " or --dtype f32" : ""}`);
      const cpuDtype = req.dtype ?? "f64";
      return { backend: "cpu", dtype: cpuDtype, device: null, note: `backend: cpu (${cpuDtype}) — --device all: ${why}` };
    }
  } else {
    const usable = listing.devices.filter((d) => d.rejected === null);
    devices = which.map((i) => {
      const picked = pickDevice(i, listing, usable);
      if (typeof picked === "string") throw deviceError(`${where}: ${picked}; use --backend cpu`);
      if (dtype === "f64" && !picked.features.shaderFloat64) throw deviceError(`Vulkan device ${picked.index} '${picked.name}' has no shaderFloat64; use --dtype f32, or leave it out of --device`);
      return picked;
    });
  }
  const names = [...new Set(devices.map((d) => `'${d.name}'`))].join(", ");
  return {
    backend: "vulkan",
    dtype,
    device: devices[0]!.index,
    devices: devices.map((d) => d.index),
    note: [...notes, `backend: vulkan (${dtype}) on devices ${devices.map((d) => d.index).join(", ")} (${names}), the chains split over them`].join("\n"),
  };
}

// The device to use, or why there is none.
function pickDevice(index: number | undefined, listing: DeviceListing, usable: DeviceInfo[]): DeviceInfo | string {
  if (index !== undefined) {
    const d = listing.devices.find((x) => x.index === index);
    if (d === undefined) {
      const known = listing.devices.map((x) => `${x.index} '${x.name}'`).join(", ");
      return `there is no Vulkan device ${index} (${known === "" ? noDeviceReason(listing) : `devices: ${known}`})`;
    }
    if (d.rejected !== null) return `Vulkan device ${index} '${d.name}' cannot be used: ${d.rejected}`;
    return d;
  }
  if (usable.length > 0) return bestDevice(usable);
  if (listing.devices.length > 0) {
    const why = listing.devices.map((d) => `device ${d.index} '${d.name}': ${d.rejected}`).join("; ");
    return `no usable Vulkan device (${why})`;
  }
  return noDeviceReason(listing);
}

function noDeviceReason(listing: DeviceListing): string {
  const reason = (listing.reason ?? "no device found").replace(/^no device:\s*/, "");
  return `no Vulkan device: ${reason}`;
}

// Discrete GPUs first, then integrated, then the rest (lavapipe's CPU device last).
function bestDevice(usable: DeviceInfo[]): DeviceInfo {
  const rank = { discrete: 0, integrated: 1, virtual: 2, other: 3, cpu: 4 } as const;
  return [...usable].sort((a, b) => rank[a.type] - rank[b.type] || a.index - b.index)[0]!;
}

/** The one plan of a run's layout (chains, depth, metric, dtype, device, GPU shape) that the sampler and its runner share. */
export function runPlan(
  run: { readonly chains: number; readonly maxDepth: number; readonly metric: "diag" | "dense"; readonly gpuShape?: "auto" | ExecutionShape; readonly dataPrecision?: "exact" | "f16" },
  choice: BackendChoice,
): RunPlan {
  return {
    chains: run.chains,
    maxDepth: run.maxDepth,
    metric: run.metric,
    dtype: choice.dtype,
    ...(choice.device !== null ? { device: choice.device } : {}),
    ...(run.gpuShape !== undefined && run.gpuShape !== "auto" ? { shape: run.gpuShape } : {}),
    ...(run.dataPrecision === "f16" ? { dataPrecision: "f16" as const } : {}),
  };
}

/** The compiled density, and on a GPU the runner that takes the sampler's transitions there (the library's PreparedRun). */
export type OpenedDensity = PreparedRun;

/** The GPU's sampler once prepared, for a run that started on the CPU. */
export type { PendingGpu };

/**
 * Prepares the run where the choice placed it: the library's prepareRun (@ppl/ppl-vulkan) decides
 * the density, the GPU's shape and, where `auto` took the GPU on its own, the start on the CPU and
 * the move to the GPU. The GPU sampler is imported here, so that --backend cpu starts without the
 * device listing.
 */
export async function openDensity(choice: BackendChoice, compiled: CompiledModel, plan: RunPlan): Promise<OpenedDensity> {
  const { prepareRun } = await import("@ppl/ppl-vulkan");
  return prepareRun(compiled, {
    ...plan,
    backend: choice.backend,
    ...(choice.devices !== undefined ? { devices: choice.devices } : {}),
    ...(choice.cpuFallback !== undefined ? { cpuFallback: choice.cpuFallback } : {}),
  });
}

/** The hint for an f32 density that factorises a matrix (the library's precisionHint). */
export async function precisionHint(compiled: CompiledModel, dtype: "f32" | "f64"): Promise<string | undefined> {
  const { precisionHint: hint } = await import("@ppl/ppl-vulkan");
  return hint(compiled, dtype);
}
