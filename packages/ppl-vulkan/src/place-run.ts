/**
 * The placement policy, as one call: placeRun turns what a caller asks (backend, devices, float
 * type, GPU shape, data precision, the sampling method) and the device listing into the run's plan
 * (ppl's PlacedPlan): which backend and device(s), in which float type, each device's group of
 * chains, whether the run starts on the CPU and moves to a GPU that `auto` took on its own, and the
 * line that says why. prepareRun (prepare-run.ts) then prepares the run as planned. `ppl sample`
 * and sample(model, data, { backend }) both place a run here.
 */
import { PlacementError } from "@ppl/ppl";
import { chainGroupSizes, type BatchedRounds, type DeviceGroup, type OptionSpelling, type PlacedPlan, type Placement, type PlacementRequest, type PlaceRunOptions } from "@ppl/ppl/runner";
import { listDevices, type DeviceInfo, type DeviceListing } from "@ppl/vulkan";
import { chooseStepSizeSearch, modelWork } from "./execution-shape.ts";

/** placeRun's options: the run's layout and request, and the device listing to place it by (default: this machine's, none for backend "cpu"). */
export interface PlaceRunInput extends PlaceRunOptions {
  readonly listing?: DeviceListing;
}

const NO_DEVICES: DeviceListing = { devices: [], reason: null };

/** Places a run: its plan, from the request and the devices (see the module's comment). */
export function placeRun(options: PlaceRunInput): PlacedPlan {
  if (options.batched !== undefined) return placeBatched(options, options.batched);
  const say = optionNames(options.spelling ?? "options");
  const method = options.method ?? "nuts";
  const host = method !== "nuts";
  if (host && options.gpuShape !== undefined && options.gpuShape !== "auto") {
    throw new PlacementError("usage", `${say("gpuShape")} lays out the GPU's NUTS kernel; ${say("method", method)} runs its transitions on the host over the GPU's batched gradient: drop ${say("gpuShape")}`);
  }
  const listing = options.listing ?? (options.backend === "cpu" ? NO_DEVICES : listDevices());
  const picked = placeBackend(options, listing, options.spelling);
  // auto's GPU for a method other than NUTS: its rounds of every chain's gradient sized as an approximation's.
  const sized = host && options.model !== undefined && picked.backend === "vulkan" && picked.cpuFallback !== undefined
    ? autoBatched(picked, { sizes: [options.chains], model: options.model }, listing, say, "chain")
    : picked;
  const placed = host ? hostTransitions(sized, method, options.spelling) : sized;
  const groups = placed.devices !== undefined && placed.devices.length > 1 ? deviceGroups(options.chains, placed.devices) : undefined;
  return {
    chains: options.chains,
    maxDepth: options.maxDepth,
    metric: options.metric,
    dtype: placed.dtype,
    ...(placed.device !== null ? { device: placed.device } : {}),
    ...(options.gpuShape !== undefined && options.gpuShape !== "auto" ? { shape: options.gpuShape } : {}),
    ...(options.dataPrecision === "f16" ? { dataPrecision: "f16" as const } : {}),
    ...(host && placed.backend === "vulkan" ? { transitions: "host" as const } : {}),
    backend: placed.backend,
    ...(placed.devices !== undefined ? { devices: placed.devices } : {}),
    ...(groups !== undefined ? { groups } : {}),
    ...(placed.cpuFallback !== undefined ? { cpuFallback: placed.cpuFallback } : {}),
    note: placed.note,
  };
}

/**
 * An approximation's placement (options.batched): its rounds of batched evaluations on one device,
 * or on the CPU. The backend is placeBackend's, in f64 unless dtype says otherwise, decided from
 * the device listing alone (no kernel is built to find a CPU implementation of Vulkan). `auto`
 * takes a GPU on its own as it does for a sampler whose transitions run on the host, except where
 * the rounds are too small to gain from it (batchedRoundsGain) or the device lacks f64 for an f64
 * run: those stay on the CPU, the note saying why and what runs them on the GPU anyway.
 */
export function placeBatched(options: PlaceRunInput, batched: BatchedRounds): PlacedPlan {
  const spelling = options.spelling ?? "options";
  const say = optionNames(spelling);
  if (options.gpuShape !== undefined && options.gpuShape !== "auto") {
    throw new PlacementError("usage", `${say("gpuShape")} lays out the GPU's NUTS kernel; an approximation evaluates its rounds on the GPU's batched gradient: drop ${say("gpuShape")}`);
  }
  if (options.device === "all" || typeof options.device === "object") {
    throw new PlacementError("usage", `an approximation evaluates its batches on one device; give ${say("device")} one index`);
  }
  const listing = options.listing ?? (options.backend === "cpu" ? NO_DEVICES : listDevices());
  const dtype = options.dtype ?? "f64";
  const picked = placeBackend({ ...options, dtype }, listing, spelling);
  const placed = picked.backend === "vulkan" && options.backend !== "vulkan" ? autoBatched(picked, batched, listing, say, "point") : picked;
  return {
    chains: Math.max(1, ...batched.sizes),
    maxDepth: options.maxDepth,
    metric: options.metric,
    dtype: placed.dtype,
    ...(placed.device !== null ? { device: placed.device } : {}),
    ...(options.dataPrecision === "f16" ? { dataPrecision: "f16" as const } : {}),
    ...(placed.backend === "vulkan" ? { transitions: "host" as const } : {}),
    backend: placed.backend,
    note: placed.backend === "vulkan" ? `${placed.note}; each round of ${sizesText(batched.sizes)} points one batched evaluation on the device` : placed.note,
  };
}

/**
 * Whether an approximation's rounds gain from a GPU: its smallest round's work (points × the
 * model's data and parameter elements) reaches the size from which placement moves a batched
 * evaluation to the device (chooseStepSizeSearch, 2^18 element-points: about 2.6 ms of host work a
 * round against one submission and read, about 0.1 ms, after a build of a second or more). An
 * approximation has no long run to measure a start on the CPU against, so the size decides.
 */
export function batchedRoundsGain(batched: BatchedRounds, deviceType: DeviceInfo["type"]): boolean {
  const smallest = Math.max(1, Math.min(...batched.sizes));
  return chooseStepSizeSearch(modelWork(batched.model), smallest, deviceType) === "device";
}

// `auto`'s GPU for rounds of batched evaluations (an approximation's points, or a host method's
// chains): kept where the device has the float type and the rounds gain from it; a device asked for
// by index is kept whatever the rounds' size (as a sampler's run starts there), never one without
// f64 for an f64 run.
function autoBatched(picked: Placement, batched: BatchedRounds, listing: DeviceListing, say: Say, unit: "point" | "chain"): Placement {
  const d = listing.devices.find((x) => x.index === picked.device)!;
  const cpu = (why: string): Placement => ({ backend: "cpu", dtype: "f64", device: null, note: `backend: cpu (f64) — ${why}` });
  if (picked.dtype === "f64" && !d.features.shaderFloat64) {
    return cpu(`Vulkan device ${d.index} '${d.name}' has no shaderFloat64 (${say("dtype", "f32")} runs on it in f32)`);
  }
  if (picked.cpuFallback !== undefined && !batchedRoundsGain(batched, d.type)) {
    const smallest = Math.max(1, Math.min(...batched.sizes));
    const work = modelWork(batched.model);
    return cpu(`rounds of ${smallest} ${unit}${smallest === 1 ? "" : "s"} × ${work} data and parameter elements are too small to gain from Vulkan device ${d.index} '${d.name}' (${say("backend", "vulkan")} runs on it anyway)`);
  }
  const { cpuFallback: _fallback, ...kept } = picked;
  return kept;
}

function sizesText(sizes: readonly number[]): string {
  return [...new Set(sizes)].sort((a, b) => a - b).join(" or ");
}

/** Each device's group of consecutive chains: near-equal groups in device order (chainGroupSizes), empty ones left out. */
export function deviceGroups(chains: number, devices: readonly number[]): DeviceGroup[] {
  return chainGroupSizes(chains, devices.length).map((n, g) => ({ device: devices[g]!, chains: n }));
}

/**
 * The backend from the request and the device listing. `auto` takes a Vulkan GPU when one is
 * usable; a CPU implementation of Vulkan (lavapipe) is slower than the native CPU backend and
 * stops shader loops after 65,535 iterations, so `auto` leaves it alone (backend "vulkan" uses it).
 * Throws a PlacementError: "device" when Vulkan is asked for and cannot be used, "usage" for a
 * device or GPU shape with the CPU backend.
 */
export function placeBackend(req: PlacementRequest, listing: DeviceListing, spelling: OptionSpelling = "options"): Placement {
  const placed = backendFor(req, listing, spelling);
  if (req.dataPrecision === "f16") checkDataPrecision(placed, listing, optionNames(spelling));
  return placed;
}

/**
 * The placement of a method other than NUTS: on a GPU its controller runs on the host over the
 * batched gradient of one device, from the start (the measured start on the CPU is the GPU NUTS
 * runner's, so no cpuFallback; under `auto`, placeRun first sizes the chains' rounds against the
 * device when it has the model); several devices are a usage error.
 */
export function hostTransitions(picked: Placement, method: string, spelling: OptionSpelling = "options"): Placement {
  if (picked.backend !== "vulkan") return picked;
  const say = optionNames(spelling);
  if (picked.devices !== undefined && picked.devices.length > 1) {
    throw new PlacementError("usage", `${say("method", method)} evaluates its chains' gradients on one device; give ${say("device")} one index (not ${picked.devices.join(",")})`);
  }
  const { cpuFallback: _fallback, devices: _devices, ...placed } = picked;
  return { ...placed, note: `${picked.note}; ${say("method", method)}: its transitions on the host, each round of all chains' gradients one batched evaluation on the device` };
}

/** The devices `device: "all"` takes: every usable one with the features the run needs (shaderFloat64 for f64; with backend auto, GPUs only), and a note for each left out. */
export function devicesForAll(listing: DeviceListing, dtype: "f32" | "f64", backend: "auto" | "vulkan", spelling: OptionSpelling = "options"): { readonly devices: DeviceInfo[]; readonly skipped: string[] } {
  const say = optionNames(spelling);
  const devices: DeviceInfo[] = [];
  const skipped: string[] = [];
  for (const d of listing.devices) {
    const skip = `note: ${say("device", "all")} skips device ${d.index} '${d.name}'`;
    if (d.rejected !== null) skipped.push(`${skip}: ${d.rejected}`);
    else if (dtype === "f64" && !d.features.shaderFloat64) skipped.push(`${skip}: it has no shaderFloat64, which ${say("dtype", "f64")} needs`);
    else if (backend === "auto" && d.type === "cpu") skipped.push(`${skip}: a CPU implementation of Vulkan (${say("backend", "vulkan")} takes it)`);
    else devices.push(d);
  }
  return { devices, skipped };
}

// How a message names an option and its value: `--gpu-shape device` or `gpuShape: "device"`.
type OptionName = "backend" | "device" | "dtype" | "gpuShape" | "dataPrecision" | "method";
type Say = (option: OptionName, value?: string) => string;
const FLAGS: Readonly<Record<OptionName, string>> = { backend: "backend", device: "device", dtype: "dtype", gpuShape: "gpu-shape", dataPrecision: "data-precision", method: "algorithm" };

function optionNames(spelling: OptionSpelling): Say {
  if (spelling === "flags") return (option, value) => `--${FLAGS[option]}${value === undefined ? "" : ` ${value}`}`;
  return (option, value) => (value === undefined ? option : `${option}: "${value}"`);
}

// 16-bit data rounds the data a GPU stores: a run on the CPU, or on a device without 16-bit
// storage, cannot honour it, and says so rather than quietly running exact.
function checkDataPrecision(placed: Placement, listing: DeviceListing, say: Say): void {
  const f16 = say("dataPrecision", "f16");
  if (placed.backend === "cpu") {
    throw new PlacementError("usage", `${f16} stores data in 16 bits on a GPU, and this run is on the CPU backend: drop ${f16}, or use ${say("backend", "vulkan")}`);
  }
  for (const index of placed.devices ?? [placed.device!]) {
    const d = listing.devices[index]!;
    if (d.features.storageBuffer16BitAccess !== true) {
      throw new PlacementError("device", `Vulkan device ${d.index} '${d.name}' lacks 16-bit storage (storageBuffer16BitAccess), which ${f16} needs: drop ${f16}`);
    }
  }
}

function backendFor(req: PlacementRequest, listing: DeviceListing, spelling: OptionSpelling): Placement {
  const say = optionNames(spelling);
  const backend = req.backend ?? "auto";
  if (backend === "cpu") {
    const dtype = req.dtype ?? "f64";
    if (req.device !== undefined) throw new PlacementError("usage", `${say("device")} selects a Vulkan device; it has no meaning with ${say("backend", "cpu")}`);
    if (req.gpuShape !== undefined && req.gpuShape !== "auto") throw new PlacementError("usage", `${say("gpuShape")} lays the sampler out on a GPU; it has no meaning with ${say("backend", "cpu")}`);
    return { backend: "cpu", dtype, device: null, note: `backend: cpu (${dtype}), as requested` };
  }
  const usable = listing.devices.filter((d) => d.rejected === null);
  if (req.device === "all" || typeof req.device === "object") return placeDevices(req, backend, req.device, listing, spelling);
  const picked = pickDevice(req.device, listing, usable);
  if (backend === "vulkan") {
    if (typeof picked === "string") throw new PlacementError("device", `${say("backend", "vulkan")}: ${picked}; use ${say("backend", "cpu")}`);
    const dtype = req.dtype ?? "f32";
    if (dtype === "f64" && !picked.features.shaderFloat64) {
      throw new PlacementError("device", `Vulkan device ${picked.index} '${picked.name}' has no shaderFloat64; use ${say("dtype", "f32")}`);
    }
    return { backend: "vulkan", dtype, device: picked.index, note: `backend: vulkan (${dtype}) on device ${picked.index} '${picked.name}', as requested` };
  }
  const dtype = req.dtype ?? "f64";
  let why: string;
  if (typeof picked === "string") why = picked;
  else if (picked.type === "cpu") why = `Vulkan device ${picked.index} '${picked.name}' is a CPU implementation; the CPU backend is faster (use ${say("backend", "vulkan")} to run on it anyway)`;
  else {
    const gpuDtype = req.dtype ?? "f32";
    // A device, shape or 16-bit data asked for asks for the GPU: the run then starts there.
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

// Several devices (a list, or all): the chains are split over them, one manager each. A list is
// taken as given, as backend vulkan takes its device; `all` under backend auto takes the GPUs and
// leaves the CPU backend when there are none.
function placeDevices(req: PlacementRequest, backend: "auto" | "vulkan", which: readonly number[] | "all", listing: DeviceListing, spelling: OptionSpelling): Placement {
  const say = optionNames(spelling);
  const dtype = req.dtype ?? "f32";
  let devices: DeviceInfo[];
  let notes: string[] = [];
  if (which === "all") {
    const found = devicesForAll(listing, dtype, backend, spelling);
    devices = found.devices;
    notes = found.skipped;
    if (devices.length === 0) {
      const prefix = `note: ${say("device", "all")} skips `;
      const why = listing.devices.length === 0 ? noDeviceReason(listing) : `no device qualifies (${found.skipped.map((n) => n.replace(prefix, "")).join("; ")})`;
      if (backend === "vulkan") throw new PlacementError("device", `${say("device", "all")}: ${why}; use ${say("backend", "cpu")}${dtype === "f64" ? ` or ${say("dtype", "f32")}` : ""}`);
      const cpuDtype = req.dtype ?? "f64";
      return { backend: "cpu", dtype: cpuDtype, device: null, note: `backend: cpu (${cpuDtype}) — ${say("device", "all")}: ${why}` };
    }
  } else {
    const where = backend === "vulkan" ? say("backend", "vulkan") : say("device");
    const usable = listing.devices.filter((d) => d.rejected === null);
    devices = which.map((i) => {
      const picked = pickDevice(i, listing, usable);
      if (typeof picked === "string") throw new PlacementError("device", `${where}: ${picked}; use ${say("backend", "cpu")}`);
      if (dtype === "f64" && !picked.features.shaderFloat64) {
        throw new PlacementError("device", `Vulkan device ${picked.index} '${picked.name}' has no shaderFloat64; use ${say("dtype", "f32")}, or leave it out of ${say("device")}`);
      }
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
