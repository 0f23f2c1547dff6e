import { VulkanManager } from "@ppl/vulkan";

/**
 * How long a device stays open after the last run on it ended. Opening one costs the H200's
 * driver about 90 ms (vkCreateDevice): most of a warm 1024-chain run's preparation. A process that
 * samples again soon (a notebook, a benchmark's repetitions after their diagnostics, a service)
 * finds it open, as JAX keeps its backend for the life of the process; one that stops sampling
 * gives the device back.
 */
export const IDLE_DEVICE_MS = 30_000;

interface Idle {
  readonly manager: VulkanManager;
  readonly timer: ReturnType<typeof setTimeout>;
}

// Idle managers by the device asked for ("default" or an index); a run in progress holds its own.
const idle = new Map<string, Idle[]>();

const keyOf = (device: number | undefined): string => (device === undefined ? "default" : String(device));

function close(manager: VulkanManager): void {
  try {
    if (!manager.destroyed) manager.destroy();
  } catch {
    // A device that fails to close has nothing left to give back.
  }
}

/** A manager of `device` for one run: an idle one left by an earlier run, else a new one. */
export function openDevice(device: number | undefined): VulkanManager {
  const list = idle.get(keyOf(device));
  while (list !== undefined && list.length > 0) {
    const { manager, timer } = list.pop()!;
    clearTimeout(timer);
    // A lost device refuses every call: only a new manager can go on.
    if (!manager.destroyed && !manager.lost) return manager;
    close(manager);
  }
  return new VulkanManager(device);
}

/**
 * Gives back a run's manager once the run destroyed its buffers, kernels and sequences: it stays
 * open for IDLE_DEVICE_MS for the next run on the same device, then closes. A lost device closes at once.
 */
export function releaseDevice(device: number | undefined, manager: VulkanManager): void {
  if (manager.destroyed) return;
  if (manager.lost) return close(manager);
  const key = keyOf(device);
  const list = idle.get(key) ?? [];
  idle.set(key, list);
  const timer = setTimeout(() => {
    const i = list.findIndex((e) => e.manager === manager);
    if (i >= 0) list.splice(i, 1);
    close(manager);
  }, IDLE_DEVICE_MS);
  // An idle device never keeps the process alive.
  timer.unref();
  list.push({ manager, timer });
}

/** Closes every idle device now (runs in progress keep theirs); returns how many were closed. */
export function closeIdleDevices(): number {
  let closed = 0;
  for (const list of idle.values()) {
    for (const { manager, timer } of list.splice(0)) {
      clearTimeout(timer);
      close(manager);
      closed++;
    }
  }
  return closed;
}
