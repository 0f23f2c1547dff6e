// Device discovery: what Vulkan devices exist and what each can do. The
// codegen reads limits and features from here as data.
import { loadAddon, type NativeDeviceInfo } from "./native.ts";

/**
 * One physical device: identity, memory heaps, compute limits, subgroup
 * support, shader features, and `rejected` (why it cannot be used, or null).
 */
export type DeviceInfo = NativeDeviceInfo;

/** The devices found, and when there are none, the reason ("no device: ..."). */
export interface DeviceListing {
  devices: DeviceInfo[];
  reason: string | null;
}

/** Lists the Vulkan devices; never throws (no addon, loader or driver gives [] and a reason). */
export function listDevices(): DeviceListing {
  const load = loadAddon();
  if (!load.ok) return { devices: [], reason: `no device: ${load.reason}` };
  try {
    return load.addon.listDevices();
  } catch (error) {
    return { devices: [], reason: `no device: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Devices that can run compute work (not rejected). */
export function usableDevices(): DeviceInfo[] {
  return listDevices().devices.filter((device) => device.rejected === null);
}
