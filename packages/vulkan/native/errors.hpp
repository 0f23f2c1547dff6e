// Turning failures into JavaScript exceptions. Every VkResult error becomes a
// JS Error carrying `vkCall` and `vkResult` properties; the TypeScript wrapper
// rethrows those as VulkanError. Argument mistakes become TypeError/RangeError.
#pragma once
#include <napi.h>

#include <string>

#include "vk.hpp"

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" for VK_ERROR_OUT_OF_DEVICE_MEMORY, etc.
const char* vkResultName(VkResult result);

// A Vulkan failure noticed off the main thread, turned into a JS error later.
struct VulkanFailure {
  std::string call;
  VkResult result = VK_SUCCESS;
  std::string detail;  // optional extra context appended to the message
};

// Builds the JS error object for a failed Vulkan call.
Napi::Error makeVulkanError(Napi::Env env, const VulkanFailure& failure);

// Throws a JS error "<call> failed: <VkResult name>[ (<detail>)]".
[[noreturn]] void throwVulkanError(Napi::Env env, const std::string& call, VkResult result,
                                   const std::string& detail = "");

// Throws when `result` is not VK_SUCCESS.
inline void check(Napi::Env env, VkResult result, const char* call) {
  if (result != VK_SUCCESS) throwVulkanError(env, call, result);
}

// What did not fit, for an out-of-memory error: the JS error carries these as
// requestedBytes, limitBytes, inUseBytes and limitName, so that callers can
// say how much was asked and how much the device has without parsing text.
struct MemoryShortfall {
  uint64_t requested = 0;
  uint64_t limit = 0;
  uint64_t inUse = 0;
  std::string limitName;  // "memory heap 0", "maxBufferSize", "maxStorageBufferRange"
};

// Throws "<call> failed: VK_ERROR_OUT_OF_DEVICE_MEMORY (<detail>)" with the shortfall attached.
[[noreturn]] void throwOutOfDeviceMemory(Napi::Env env, const std::string& call, const MemoryShortfall& shortfall,
                                         const std::string& detail);

[[noreturn]] void throwTypeError(Napi::Env env, const std::string& message);
[[noreturn]] void throwRangeError(Napi::Env env, const std::string& message);
[[noreturn]] void throwError(Napi::Env env, const std::string& message);
