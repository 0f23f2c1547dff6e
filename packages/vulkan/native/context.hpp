// The device context: everything a manager owns on one device (logical
// device, queue, command pool, pipeline cache). Buffers, algorithms and
// sequences hold a shared_ptr to it, so the VkDevice outlives every object
// created from it, whatever order JavaScript destroys or collects them in.
#pragma once
#include <napi.h>

#include <memory>
#include <string>

#include "devices.hpp"
#include "vk.hpp"

struct ContextOptions {
  bool forceStaging = false;
  bool robustBufferAccess = true;
  std::string pipelineCachePath;  // "" = keep the cache in memory only
};

struct Context {
  PhysicalDeviceInfo physical;
  uint32_t deviceIndex = 0;
  ContextOptions options;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  // Command buffers are allocated and freed on the main thread only, which is
  // what makes sharing one pool safe (pools are externally synchronized).
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkPipelineCache pipelineCache = VK_NULL_HANDLE;

  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  const VkPhysicalDeviceLimits& limits() const { return physical.properties.limits; }

  // Index of a memory type allowed by `typeBits` that has all `required`
  // flags, or -1.
  int findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required) const;

  // Writes the pipeline cache to options.pipelineCachePath (if set).
  void savePipelineCache(Napi::Env env) const;
};

// Creates the logical device for physical device `deviceIndex`; throws a JS
// error on failure.
std::shared_ptr<Context> createContext(Napi::Env env, uint32_t deviceIndex, const ContextOptions& options);

// The best usable device (discrete > integrated > virtual > cpu), or throws.
uint32_t pickDefaultDevice(Napi::Env env);
