import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { listDevices, loadAddon, usableDevices, VulkanManager, VulkanUnavailableError } from "../src/index.ts";
import { lavapipe } from "./helpers.ts";

const indexUrl = new URL("../src/index.ts", import.meta.url).href;
const packageDir = fileURLToPath(new URL("..", import.meta.url));

/** Runs `code` (an ES module body importing the package as `vk`) in a child node with `env`. */
function runChild(code: string, env: Record<string, string>) {
  const script = `const vk = await import(${JSON.stringify(indexUrl)});\n${code}`;
  return spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: packageDir,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
}

describe("device discovery", () => {
  it("loads the native addon", () => {
    const load = loadAddon();
    expect(load.ok ? "loaded" : load.reason).toBe("loaded");
  });

  it("lists lavapipe with its limits, subgroup support and features", () => {
    const device = lavapipe();
    expect(device.type).toBe("cpu");
    expect(device.rejected).toBeNull();
    expect(device.apiVersion).toMatch(/^1\.\d+\.\d+$/);
    expect(device.memoryHeaps.length).toBeGreaterThan(0);
    expect(device.memoryHeaps[0]!.size).toBeGreaterThan(0);
    expect(device.hostVisibleDeviceLocal).toBe(true);
    const limits = device.limits;
    for (const size of limits.maxComputeWorkGroupSize) expect(size).toBeGreaterThan(0);
    for (const count of limits.maxComputeWorkGroupCount) expect(count).toBeGreaterThan(0);
    expect(limits.maxComputeWorkGroupInvocations).toBeGreaterThan(0);
    expect(limits.maxComputeSharedMemorySize).toBeGreaterThan(0);
    expect(limits.maxStorageBufferRange).toBeGreaterThan(0);
    expect(limits.maxPushConstantsSize).toBeGreaterThanOrEqual(128);
    expect(device.subgroup.size).toBeGreaterThan(0);
    expect(device.subgroup.operations).toContain("basic");
    expect(device.features.shaderFloat64).toBe(true);
    expect(device.features.shaderInt64).toBe(true);
    expect(typeof device.features.atomicFloat.bufferFloat32AtomicAdd).toBe("boolean");
    // Data stored in 16 bits (--data-precision f16) are tested on lavapipe: it has 16-bit storage.
    expect(device.features.storageBuffer16BitAccess).toBe(true);
    expect(listDevices().reason).toBeNull();
    expect(usableDevices().map((d) => d.index)).toContain(device.index);
  });

  it("opens the default device and reports it", () => {
    const manager = new VulkanManager();
    expect(manager.device.name).toBe(listDevices().devices[manager.deviceIndex]!.name);
    manager.destroy();
    expect(manager.destroyed).toBe(true);
  });

  it("rejects an out-of-range device index with a clear error", () => {
    expect(() => new VulkanManager(99)).toThrow(/device index 99 out of range/);
    expect(() => new VulkanManager(-1)).toThrow(RangeError);
  });

  it("with an empty driver list returns [] and a reason instead of crashing", () => {
    const child = runChild(
      `console.log(JSON.stringify(vk.listDevices()));
       try { new vk.VulkanManager(); console.log("opened"); }
       catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message })); }`,
      { VK_ICD_FILENAMES: "/nonexistent/icd.json", VK_DRIVER_FILES: "/nonexistent/icd.json" },
    );
    expect(child.signal).toBeNull();
    expect(child.status, child.stderr).toBe(0);
    const [listingLine, managerLine] = child.stdout.trim().split("\n");
    const listing = JSON.parse(listingLine!) as { devices: unknown[]; reason: string };
    expect(listing.devices).toEqual([]);
    expect(listing.reason).toMatch(/^no device: /);
    expect(listing.reason).toMatch(/driver|ICD|physical device/i);
    expect(JSON.parse(managerLine!).message).toMatch(/no device/);
  });

  it("without a loadable libvulkan.so.1 says so instead of crashing", () => {
    // A file that is not a shared library shadows the real loader.
    const dir = mkdtempSync(join(tmpdir(), "ppl-no-loader-"));
    writeFileSync(join(dir, "libvulkan.so.1"), "not a shared library");
    const child = runChild(`console.log(JSON.stringify(vk.listDevices()));`, { LD_LIBRARY_PATH: dir });
    expect(child.status, child.stderr).toBe(0);
    const listing = JSON.parse(child.stdout.trim()) as { devices: unknown[]; reason: string };
    expect(listing.devices).toEqual([]);
    expect(listing.reason).toMatch(/^no device: libvulkan\.so\.1 not found/);
  });

  it("importing never throws when the addon is missing; listDevices gives the reason", () => {
    const child = runChild(
      `console.log(JSON.stringify(vk.listDevices()));
       try { new vk.VulkanManager(); } catch (e) { console.log(e.name); }`,
      { PPL_VULKAN_ADDON: "/nonexistent/ppl_vulkan.node" },
    );
    expect(child.status, child.stderr).toBe(0);
    const [listingLine, errorName] = child.stdout.trim().split("\n");
    const listing = JSON.parse(listingLine!) as { devices: unknown[]; reason: string };
    expect(listing.devices).toEqual([]);
    expect(listing.reason).toMatch(/no device: the Vulkan addon is not built/);
    expect(errorName).toBe(VulkanUnavailableError.name);
  });
});
