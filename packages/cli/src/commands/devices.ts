/** `ppl devices`: the Vulkan devices, their type, memory, f64 support and limits, or why there are none. */
import { listDevices, type DeviceInfo, type DeviceListing } from "@ppl/vulkan";
import { devicesForAll } from "../choose-backend.ts";
import { ExitCode, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";

/** Options of `ppl devices`. */
export interface DevicesCommandOptions {
  readonly json: boolean;
}

/** Prints the device listing; exits 0 whether or not there are devices (the listing itself worked). */
export function devicesCommand(opts: DevicesCommandOptions, io: CommandIO, listing: DeviceListing = listDevices()): ExitCodeValue {
  if (opts.json) {
    io.stdout.write(JSON.stringify(listing, null, 2) + "\n");
    return ExitCode.ok;
  }
  io.stdout.write(formatDevices(listing));
  return ExitCode.ok;
}

/** The listing as text: one block per device, or one line saying there are none and why. */
export function formatDevices(listing: DeviceListing): string {
  if (listing.devices.length === 0) {
    const reason = (listing.reason ?? "the Vulkan loader found none").replace(/^no device:\s*/, "");
    return `No Vulkan devices: ${reason}\n`;
  }
  return listing.devices.map(formatDevice).join("\n") + "\n" + allLines(listing);
}

// What `ppl sample --device all` takes, per float type and backend, and what it skips and why.
function allLines(listing: DeviceListing): string {
  const lines: string[] = [];
  for (const backend of ["vulkan", "auto"] as const) {
    for (const dtype of ["f32", "f64"] as const) {
      const { devices, skipped } = devicesForAll(listing, dtype, backend);
      const taken = devices.length === 0 ? "no device" : `device${devices.length > 1 ? "s" : ""} ${devices.map((d) => d.index).join(", ")}`;
      const why = skipped.map((n) => n.replace(/^note: --device all skips /, "")).join("; ");
      lines.push(`--device all, --backend ${backend} --dtype ${dtype}: ${taken}${why === "" ? "" : ` (skips ${why})`}`);
    }
  }
  return lines.join("\n") + "\n";
}

function formatDevice(d: DeviceInfo): string {
  const local = d.memoryHeaps.filter((h) => h.deviceLocal).reduce((a, h) => a + h.size, 0);
  const l = d.limits;
  const lines = [
    `device ${d.index}: ${d.name} (${d.type})${d.rejected === null ? "" : `: not usable: ${d.rejected}`}`,
    `  driver:          ${d.driver}${d.driverInfo ? ` ${d.driverInfo}` : ""}, Vulkan ${d.apiVersion}`,
    `  memory:          ${bytes(local)} device-local (${d.memoryHeaps.length} heap${d.memoryHeaps.length === 1 ? "" : "s"})`,
    `  f64 in shaders:  ${d.features.shaderFloat64 ? "yes" : "no"}; int64: ${d.features.shaderInt64 ? "yes" : "no"}; 16-bit storage: ${d.features.storageBuffer16BitAccess ? "yes" : "no"} (--data-precision f16)`,
    `  workgroups:      ${l.maxComputeWorkGroupInvocations} invocations, size ≤ ${l.maxComputeWorkGroupSize.join("×")}, count ≤ ${l.maxComputeWorkGroupCount.join("×")}`,
    `  shared memory:   ${bytes(l.maxComputeSharedMemorySize)}`,
    `  storage buffers: ${l.maxPerStageDescriptorStorageBuffers} per stage, range ≤ ${bytes(l.maxStorageBufferRange)}, buffer ≤ ${bytes(l.maxBufferSize)}`,
    `  push constants:  ${l.maxPushConstantsSize} bytes`,
    `  subgroups:       size ${d.subgroup.size}${d.subgroup.inCompute ? "" : " (not in compute)"}${d.subgroup.operations.length > 0 ? `, ${d.subgroup.operations.join(" ")}` : ""}`,
  ];
  return lines.join("\n") + "\n";
}

/** Bytes in binary units: "512 B", "48.0 KiB", "16.0 GiB". */
export function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}
