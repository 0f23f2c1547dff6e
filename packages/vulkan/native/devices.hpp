// Physical-device discovery: what each device is and what it can do. The
// manager uses the same description to create its logical device, so listing
// and use never disagree.
#pragma once
#include <napi.h>

#include <string>
#include <vector>

#include "vk.hpp"

struct AtomicFloatSupport {
  bool extension = false;  // VK_EXT_shader_atomic_float is present
  bool bufferFloat32Atomics = false;
  bool bufferFloat32AtomicAdd = false;
  bool bufferFloat64Atomics = false;
  bool bufferFloat64AtomicAdd = false;
  bool sharedFloat32AtomicAdd = false;
  bool sharedFloat64AtomicAdd = false;
};

struct PhysicalDeviceInfo {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory{};
  VkPhysicalDeviceFeatures features{};
  VkPhysicalDeviceSubgroupProperties subgroup{};
  std::string driverName;  // "" when the device does not report it
  std::string driverInfo;
  uint64_t maxBufferSize = 0;  // 0 when unknown (no Vulkan 1.3 / maintenance4)
  AtomicFloatSupport atomicFloat;
  // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo: the
  // driver reports each pipeline's compiled code (registers, spills, size).
  bool pipelineExecutableInfo = false;
  // VkPhysicalDevice16BitStorageFeatures (core in Vulkan 1.1): storage buffers may hold 16-bit
  // values (float16_t), which data stored in half precision needs.
  bool storageBuffer16BitAccess = false;
  // VK_KHR_shader_clock with shaderSubgroupClock: kernels may read a
  // multiprocessor's cycle counter (clock2x32ARB), for profiling only.
  bool shaderSubgroupClock = false;
  int computeQueueFamily = -1;
  std::string rejected;  // why the device cannot be used; "" when usable
};

// Every physical device, or an empty list with `reason` set.
std::vector<PhysicalDeviceInfo> discoverDevices(std::string& reason);

// JS: listDevices() -> { devices: DeviceInfo[], reason: string | null }. Never throws.
Napi::Value ListDevices(const Napi::CallbackInfo& info);
