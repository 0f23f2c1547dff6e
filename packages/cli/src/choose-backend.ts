/**
 * Where the log density runs. This is the one place that maps `--backend`, `--device` and
 * `--dtype` to a density: when the Vulkan sampler lands, `chooseBackend` returns a Vulkan choice
 * for a usable device and `openDensity` builds its density; nothing else changes.
 */
import { castFloats } from "@ppl/tensor";
import { modelDensity, type CompiledModel, type ModelDensity } from "@ppl/ppl";
import type { DeviceInfo, DeviceListing } from "@ppl/vulkan";
import { deviceError, usageError } from "./exit-codes.ts";

/** What the user asked for. */
export interface BackendRequest {
  readonly backend: "auto" | "cpu" | "vulkan";
  /** Index into listDevices(); undefined picks the best usable device. */
  readonly device?: number;
  /** Float type of the density; undefined takes the backend's default (f64 on the CPU). */
  readonly dtype?: "f32" | "f64";
}

/** The backend a run uses, and the line that tells the user why. */
export interface BackendChoice {
  readonly backend: "cpu";
  readonly dtype: "f32" | "f64";
  /** Index of the Vulkan device used, or null on the CPU. */
  readonly device: number | null;
  /** One line for stderr: which backend and why. */
  readonly note: string;
}

/** Whether a Vulkan sampler exists in this version (the density path is CPU-only for now). */
export const VULKAN_SAMPLER_AVAILABLE = false;

/**
 * Picks the backend from the request and the device listing. Throws a device error (exit 4)
 * when Vulkan is requested and cannot be used, and a usage error for --device with --backend cpu.
 */
export function chooseBackend(req: BackendRequest, listing: DeviceListing): BackendChoice {
  const dtype = req.dtype ?? "f64";
  if (req.backend === "cpu") {
    if (req.device !== undefined) throw usageError("--device selects a Vulkan device; it has no meaning with --backend cpu");
    return { backend: "cpu", dtype, device: null, note: `backend: cpu (${dtype}), as requested` };
  }
  const usable = listing.devices.filter((d) => d.rejected === null);
  const picked = pickDevice(req.device, listing, usable);
  if (req.backend === "vulkan") {
    if (typeof picked === "string") throw deviceError(`--backend vulkan: ${picked}; use --backend cpu`);
    throw deviceError(`the Vulkan sampler is not available in this version; use --backend cpu (device ${picked.index} '${picked.name}' is present)`);
  }
  const why =
    typeof picked === "string"
      ? picked
      : `Vulkan device ${picked.index} '${picked.name}' is present, but the Vulkan sampler is not available in this version yet`;
  return { backend: "cpu", dtype, device: null, note: `backend: cpu (${dtype}) — ${why}` };
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

/** Compiles the model's density for the chosen backend. */
export async function openDensity(choice: BackendChoice, compiled: CompiledModel): Promise<ModelDensity> {
  return modelDensity(choice.dtype === "f32" ? castModel(compiled, "f32") : compiled, { backend: "cpu" });
}

// The model with every float computed in `dtype`; the CPU backend accepts f64 values for f32 leaves,
// so the bindings stay as they are.
function castModel(compiled: CompiledModel, dtype: "f32" | "f64"): CompiledModel {
  const [logDensity, q, generatedFlat] = castFloats([compiled.logDensity, compiled.q, compiled.generatedFlat], dtype);
  return { ...compiled, logDensity: logDensity!, q: q!, generatedFlat: generatedFlat! };
}
