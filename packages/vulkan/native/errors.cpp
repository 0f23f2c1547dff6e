#include "errors.hpp"

const char* vkResultName(VkResult result) {
  switch (result) {
#define PPL_CASE(name) \
  case name:           \
    return #name;
    PPL_CASE(VK_SUCCESS)
    PPL_CASE(VK_NOT_READY)
    PPL_CASE(VK_TIMEOUT)
    PPL_CASE(VK_EVENT_SET)
    PPL_CASE(VK_EVENT_RESET)
    PPL_CASE(VK_INCOMPLETE)
    PPL_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    PPL_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    PPL_CASE(VK_ERROR_INITIALIZATION_FAILED)
    PPL_CASE(VK_ERROR_DEVICE_LOST)
    PPL_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    PPL_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    PPL_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    PPL_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    PPL_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    PPL_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    PPL_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    PPL_CASE(VK_ERROR_FRAGMENTED_POOL)
    PPL_CASE(VK_ERROR_UNKNOWN)
    PPL_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    PPL_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    PPL_CASE(VK_ERROR_FRAGMENTATION)
    PPL_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    PPL_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    PPL_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef PPL_CASE
    default:
      return "VK_RESULT_UNKNOWN";
  }
}

Napi::Error makeVulkanError(Napi::Env env, const VulkanFailure& failure) {
  std::string message = failure.call + " failed: " + vkResultName(failure.result);
  if (!failure.detail.empty()) message += " (" + failure.detail + ")";
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("vkCall", Napi::String::New(env, failure.call));
  error.Set("vkResult", Napi::String::New(env, vkResultName(failure.result)));
  return error;
}

void throwVulkanError(Napi::Env env, const std::string& call, VkResult result,
                      const std::string& detail) {
  throw makeVulkanError(env, VulkanFailure{call, result, detail});
}

void throwOutOfDeviceMemory(Napi::Env env, const std::string& call, const MemoryShortfall& shortfall,
                            const std::string& detail) {
  Napi::Error error = makeVulkanError(env, VulkanFailure{call, VK_ERROR_OUT_OF_DEVICE_MEMORY, detail});
  // Doubles: exact up to 2^53 bytes, far beyond any device.
  error.Set("requestedBytes", Napi::Number::New(env, static_cast<double>(shortfall.requested)));
  error.Set("limitBytes", Napi::Number::New(env, static_cast<double>(shortfall.limit)));
  error.Set("inUseBytes", Napi::Number::New(env, static_cast<double>(shortfall.inUse)));
  error.Set("limitName", Napi::String::New(env, shortfall.limitName));
  throw error;
}

void throwTypeError(Napi::Env env, const std::string& message) {
  throw Napi::TypeError::New(env, message);
}

void throwRangeError(Napi::Env env, const std::string& message) {
  throw Napi::RangeError::New(env, message);
}

void throwError(Napi::Env env, const std::string& message) {
  throw Napi::Error::New(env, message);
}
