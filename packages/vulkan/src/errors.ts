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

/** No Vulkan device can be used here (addon not built, no loader, no driver); `reason` says which. */
export class VulkanUnavailableError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`Vulkan is unavailable: ${reason}`);
    this.name = "VulkanUnavailableError";
    this.reason = reason;
  }
}

/** GLSL did not compile; the message holds glslc's diagnostics and the numbered source around them. */
export class ShaderCompileError extends Error {
  readonly diagnostics: string;
  readonly source: string;
  constructor(message: string, diagnostics: string, source: string) {
    super(message);
    this.name = "ShaderCompileError";
    this.diagnostics = diagnostics;
    this.source = source;
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
}

function isNativeVulkanFailure(error: unknown): error is NativeVulkanFailure {
  return (
    error instanceof Error &&
    typeof (error as Partial<NativeVulkanFailure>).vkCall === "string" &&
    typeof (error as Partial<NativeVulkanFailure>).vkResult === "string"
  );
}

/** Rethrows a native Vulkan failure as VulkanError; other errors pass unchanged. */
export function translateError(error: unknown): unknown {
  if (isNativeVulkanFailure(error)) return new VulkanError(error.message, error.vkCall, error.vkResult);
  return error;
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
