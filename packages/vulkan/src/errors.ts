// Error classes of the Vulkan layer, and the translation of the addon's
// errors (plain Errors carrying vkCall / vkResult) into VulkanError.

/** A Vulkan call failed; `call` is the function ("vkAllocateMemory"), `result` the VkResult name. */
export class VulkanError extends Error {
  readonly call: string;
  readonly result: string;
  constructor(message: string, call: string, result: string) {
    super(message);
    this.name = "VulkanError";
    this.call = call;
    this.result = result;
  }
}

/**
 * The device lacks the memory a buffer needs: a heap is full (with what this manager already
 * holds), or one buffer is larger than the device's maxBufferSize or than the range one binding
 * can reach (maxStorageBufferRange). `requested` and `limit` are in bytes; `inUse` is what this
 * manager already held in that heap. The message names both sizes and the fix.
 */
export class DeviceMemoryError extends VulkanError {
  readonly requested: number;
  readonly limit: number;
  readonly inUse: number;
  /** "memory heap 0", "maxBufferSize" or "maxStorageBufferRange". */
  readonly limitName: string;
  constructor(call: string, shortfall: { requested: number; limit: number; inUse: number; limitName: string }, detail: string) {
    const what =
      shortfall.limitName === "maxStorageBufferRange"
        ? `a buffer of ${bytes(shortfall.requested)} is more than the ${bytes(shortfall.limit)} one binding can reach (maxStorageBufferRange)`
        : shortfall.limitName === "maxBufferSize"
          ? `a buffer of ${bytes(shortfall.requested)} is more than the device's largest buffer, ${bytes(shortfall.limit)} (maxBufferSize)`
          : `${bytes(shortfall.requested)} do not fit in ${shortfall.limitName}, which holds ${bytes(shortfall.limit)} with ${bytes(shortfall.inUse)} already in use by this manager`;
    super(
      `${call} failed: VK_ERROR_OUT_OF_DEVICE_MEMORY: out of device memory: ${what}; use smaller data or fewer chains, a device with more memory, or the CPU backend (${detail})`,
      call,
      "VK_ERROR_OUT_OF_DEVICE_MEMORY",
    );
    this.name = "DeviceMemoryError";
    this.requested = shortfall.requested;
    this.limit = shortfall.limit;
    this.inUse = shortfall.inUse;
    this.limitName = shortfall.limitName;
  }
}

/** "160000000 bytes (152.6 MiB)": exact for a reader comparing with a limit, readable at a glance. */
function bytes(n: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u < 0 ? `${n} bytes` : `${n} bytes (${v.toFixed(1)} ${units[u]})`;
}

/** No Vulkan device can be used here (addon not built, no loader, no driver); `reason` says which. */
export class VulkanUnavailableError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`Vulkan is unavailable: ${reason}`);
    this.name = "VulkanUnavailableError";
    this.reason = reason;
  }
}

/**
 * GLSL did not compile. The source is generated, so it is saved to `file` for a reader to open;
 * the message's first line names `file:line` of the first error and quotes that line, and the
 * rest holds glslc's diagnostics and the numbered source around them.
 */
export class ShaderCompileError extends Error {
  readonly diagnostics: string;
  readonly source: string;
  /** Where the source was saved ("<stdin>" when it could not be). */
  readonly file: string;
  /** 1-based line of the first error, or 0 when glslc named none. */
  readonly line: number;
  constructor(message: string, diagnostics: string, source: string, file = "<stdin>", line = 0) {
    super(message);
    this.name = "ShaderCompileError";
    this.diagnostics = diagnostics;
    this.source = source;
    this.file = file;
    this.line = line;
  }
}

/** The glslc executable is missing or cannot run. */
export class ShaderCompilerMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShaderCompilerMissingError";
  }
}

interface NativeVulkanFailure {
  message: string;
  vkCall: string;
  vkResult: string;
  /** Set by the addon for memory the device lacks (errors.hpp MemoryShortfall). */
  requestedBytes?: number;
  limitBytes?: number;
  inUseBytes?: number;
  limitName?: string;
}

function isNativeVulkanFailure(error: unknown): error is NativeVulkanFailure {
  return (
    error instanceof Error &&
    typeof (error as Partial<NativeVulkanFailure>).vkCall === "string" &&
    typeof (error as Partial<NativeVulkanFailure>).vkResult === "string"
  );
}

/** Rethrows a native Vulkan failure as VulkanError (DeviceMemoryError for memory); other errors pass unchanged. */
export function translateError(error: unknown): unknown {
  if (!isNativeVulkanFailure(error)) return error;
  if (typeof error.requestedBytes === "number" && typeof error.limitBytes === "number") {
    const detail = /\((.*)\)$/.exec(error.message)?.[1] ?? "";
    const shortfall = { requested: error.requestedBytes, limit: error.limitBytes, inUse: error.inUseBytes ?? 0, limitName: error.limitName ?? "device memory" };
    return new DeviceMemoryError(error.vkCall, shortfall, detail);
  }
  return new VulkanError(error.message, error.vkCall, error.vkResult);
}

/** Runs a native call, translating its errors. */
export function callNative<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw translateError(error);
  }
}

/** Awaits a native promise, translating its rejection; a synchronous throw is translated too. */
export async function callNativeAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw translateError(error);
  }
}
