// The device context: everything a manager owns on one device (logical
// device, queue, command pool, pipeline cache). Buffers, algorithms and
// sequences hold a shared_ptr to it, so the VkDevice outlives every object
// created from it, whatever order JavaScript destroys or collects them in.
#pragma once
#include <napi.h>

#include <atomic>
#include <memory>
#include <string>

#include "devices.hpp"
#include "vk.hpp"

struct ContextOptions {
  bool forceStaging = false;
  bool robustBufferAccess = true;
  std::string pipelineCachePath;  // "" = keep the cache in memory only
  // Ask the driver to keep each pipeline's compiled-code statistics (where the
  // device reports them): Algorithm.statistics() then returns them.
  bool pipelineStatistics = false;
};

struct StagingPool;  // staging.hpp

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
  // Set when options.pipelineStatistics was asked for and the device has
  // pipelineExecutableInfo (the extension's two queries, loaded for this device).
  PFN_vkGetPipelineExecutablePropertiesKHR getPipelineExecutableProperties = nullptr;
  PFN_vkGetPipelineExecutableStatisticsKHR getPipelineExecutableStatistics = nullptr;
  // Bytes this manager holds in each memory heap. Allocating more than a heap
  // holds is invalid usage rather than an error on some drivers, and lavapipe
  // never refuses at all, so the addon refuses past a heap's size itself.
  std::atomic<uint64_t> heapAllocated[VK_MAX_MEMORY_HEAPS]{};
  uint64_t heapLimit = 0;  // PPL_VULKAN_TEST_HEAP_LIMIT when it was created; 0 = none
  // The call that first reported VK_ERROR_DEVICE_LOST (a string literal), on
  // the main or the fence-wait thread. A lost device stays lost: later work is
  // refused with the same error instead of reaching the driver again.
  std::atomic<const char*> lostAt{nullptr};
  // Staging buffers reused by transfers (staging.hpp), made on first use; main thread only.
  std::unique_ptr<StagingPool> staging;

  Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  const VkPhysicalDeviceLimits& limits() const { return physical.properties.limits; }

  // Index of a memory type allowed by `typeBits` that has all `required`
  // flags, or -1.
  int findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required) const;

  // What heap `heap` may hold: its size, or the test limit when lower.
  uint64_t heapCapacity(uint32_t heap) const;

  // Records a VK_ERROR_DEVICE_LOST result of `call` (a string literal).
  void noteResult(VkResult result, const char* call);

  // Throws VulkanError(call, VK_ERROR_DEVICE_LOST) once the device was lost.
  void requireAlive(Napi::Env env, const char* call) const;

  // Writes the pipeline cache to options.pipelineCachePath (if set).
  void savePipelineCache(Napi::Env env) const;
};

// Creates the logical device for physical device `deviceIndex`; throws a JS
// error on failure.
std::shared_ptr<Context> createContext(Napi::Env env, uint32_t deviceIndex, const ContextOptions& options);

// The best usable device (discrete > integrated > virtual > cpu), or throws.
uint32_t pickDefaultDevice(Napi::Env env);
