#include "context.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "errors.hpp"
#include "staging.hpp"
#include "test_hooks.hpp"

Context::Context() { countLive(LiveKind::Context, 1); }

Context::~Context() {
  countLive(LiveKind::Context, -1);
  if (device == VK_NULL_HANDLE) return;
  fn::vkDeviceWaitIdle(device);
  staging.reset();  // its buffers and command buffers go before the pool and device they came from
  if (pipelineCache != VK_NULL_HANDLE) fn::vkDestroyPipelineCache(device, pipelineCache, nullptr);
  if (commandPool != VK_NULL_HANDLE) fn::vkDestroyCommandPool(device, commandPool, nullptr);
  fn::vkDestroyDevice(device, nullptr);
}

uint64_t Context::heapCapacity(uint32_t heap) const {
  uint64_t size = physical.memory.memoryHeaps[heap].size;
  return heapLimit != 0 && heapLimit < size ? heapLimit : size;
}

void Context::noteResult(VkResult result, const char* call) {
  const char* none = nullptr;
  if (result == VK_ERROR_DEVICE_LOST) lostAt.compare_exchange_strong(none, call);
}

void Context::requireAlive(Napi::Env env, const char* call) const {
  const char* at = lostAt.load();
  if (at == nullptr) return;
  throwVulkanError(env, call, VK_ERROR_DEVICE_LOST,
                   std::string("the device was lost earlier, at ") + at +
                       "; refused before calling Vulkan: destroy this manager and create a new one, or use the CPU backend");
}

int Context::findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required) const {
  for (uint32_t i = 0; i < physical.memory.memoryTypeCount; i++) {
    if ((typeBits & (1u << i)) && (physical.memory.memoryTypes[i].propertyFlags & required) == required) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// Returns the cache file's bytes when its header says it was written by this
// very device and driver; anything else starts an empty cache (drivers are
// meant to check this too, but not all do it carefully).
static std::vector<char> readPipelineCache(const std::string& path, const VkPhysicalDeviceProperties& properties) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return {};
  std::vector<char> data((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t headerSize = 16 + VK_UUID_SIZE;
  if (data.size() < headerSize) return {};
  uint32_t header[4];
  std::memcpy(header, data.data(), sizeof(header));
  if (header[0] < headerSize || header[1] != VK_PIPELINE_CACHE_HEADER_VERSION_ONE ||
      header[2] != properties.vendorID || header[3] != properties.deviceID ||
      std::memcmp(data.data() + 16, properties.pipelineCacheUUID, VK_UUID_SIZE) != 0) {
    return {};
  }
  return data;
}

void Context::savePipelineCache(Napi::Env env) const {
  if (options.pipelineCachePath.empty() || pipelineCache == VK_NULL_HANDLE) return;
  size_t size = 0;
  check(env, fn::vkGetPipelineCacheData(device, pipelineCache, &size, nullptr), "vkGetPipelineCacheData");
  std::vector<char> data(size);
  check(env, fn::vkGetPipelineCacheData(device, pipelineCache, &size, data.data()), "vkGetPipelineCacheData");
  // Write then rename, so a concurrent reader never sees half a file.
  std::string temporary = options.pipelineCachePath + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) throwError(env, "cannot write pipeline cache file " + temporary);
    file.write(data.data(), static_cast<std::streamsize>(size));
    if (!file) throwError(env, "cannot write pipeline cache file " + temporary);
  }
  if (std::rename(temporary.c_str(), options.pipelineCachePath.c_str()) != 0) {
    throwError(env, "cannot rename " + temporary + " to " + options.pipelineCachePath);
  }
}

static int typeRank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

uint32_t pickDefaultDevice(Napi::Env env) {
  std::string reason;
  std::vector<PhysicalDeviceInfo> devices = discoverDevices(reason);
  int best = -1;
  for (size_t i = 0; i < devices.size(); i++) {
    if (!devices[i].rejected.empty()) continue;
    if (best < 0 || typeRank(devices[i].properties.deviceType) < typeRank(devices[best].properties.deviceType)) {
      best = static_cast<int>(i);
    }
  }
  if (best < 0) {
    if (reason.empty()) reason = "no usable Vulkan device (every device was rejected)";
    throwError(env, "no device: " + reason);
  }
  return static_cast<uint32_t>(best);
}

std::shared_ptr<Context> createContext(Napi::Env env, uint32_t deviceIndex, const ContextOptions& options) {
  std::string reason;
  std::vector<PhysicalDeviceInfo> devices = discoverDevices(reason);
  if (devices.empty()) throwError(env, "no device: " + reason);
  if (deviceIndex >= devices.size()) {
    throwRangeError(env, "device index " + std::to_string(deviceIndex) + " out of range: " +
                             std::to_string(devices.size()) + " device(s) found");
  }
  const PhysicalDeviceInfo& physical = devices[deviceIndex];
  if (!physical.rejected.empty()) {
    throwError(env, std::string("device ") + std::to_string(deviceIndex) + " (" + physical.properties.deviceName +
                        ") cannot be used: " + physical.rejected);
  }

  auto context = std::make_shared<Context>();
  context->heapLimit = testHeapLimit();
  context->physical = physical;
  context->deviceIndex = deviceIndex;
  context->options = options;
  context->queueFamily = static_cast<uint32_t>(physical.computeQueueFamily);

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{};
  queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queueInfo.queueFamilyIndex = context->queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;

  // Enable only what kernels may use; robustBufferAccess turns an
  // out-of-bounds shader access into a defined result instead of a crash
  // (lavapipe runs shaders in this very process).
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.features.shaderFloat64 = physical.features.shaderFloat64;
  features.features.shaderInt64 = physical.features.shaderInt64;
  features.features.shaderInt16 = physical.features.shaderInt16;
  features.features.robustBufferAccess = options.robustBufferAccess ? physical.features.robustBufferAccess : VK_FALSE;

  std::vector<const char*> extensions;
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{};
  atomicFloat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
  if (physical.atomicFloat.extension) {
    extensions.push_back("VK_EXT_shader_atomic_float");
    atomicFloat.shaderBufferFloat32Atomics = physical.atomicFloat.bufferFloat32Atomics;
    atomicFloat.shaderBufferFloat32AtomicAdd = physical.atomicFloat.bufferFloat32AtomicAdd;
    atomicFloat.shaderBufferFloat64Atomics = physical.atomicFloat.bufferFloat64Atomics;
    atomicFloat.shaderBufferFloat64AtomicAdd = physical.atomicFloat.bufferFloat64AtomicAdd;
    atomicFloat.shaderSharedFloat32AtomicAdd = physical.atomicFloat.sharedFloat32AtomicAdd;
    atomicFloat.shaderSharedFloat64AtomicAdd = physical.atomicFloat.sharedFloat64AtomicAdd;
    features.pNext = &atomicFloat;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{};
  executable.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  const bool statistics = options.pipelineStatistics && physical.pipelineExecutableInfo;
  if (statistics) {
    extensions.push_back("VK_KHR_pipeline_executable_properties");
    executable.pipelineExecutableInfo = VK_TRUE;
    executable.pNext = features.pNext;
    features.pNext = &executable;
  }

  // Enabled whenever present: it only permits 16-bit buffer members, so kernels that declare none
  // are unaffected, and a device without it never sees the structure ask for it.
  VkPhysicalDevice16BitStorageFeatures storage16{};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  if (physical.storageBuffer16BitAccess) {
    storage16.storageBuffer16BitAccess = VK_TRUE;
    storage16.pNext = features.pNext;
    features.pNext = &storage16;
  }

  // Enabled whenever present, like 16-bit storage: it only permits reading the cycle counter
  // (profiling builds of the NUTS controller), which no other kernel does.
  VkPhysicalDeviceShaderClockFeaturesKHR clock{};
  clock.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR;
  if (physical.shaderSubgroupClock) {
    extensions.push_back("VK_KHR_shader_clock");
    clock.shaderSubgroupClock = VK_TRUE;
    clock.pNext = features.pNext;
    features.pNext = &clock;
  }

  VkDeviceCreateInfo deviceInfo{};
  deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  deviceInfo.pNext = &features;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  deviceInfo.ppEnabledExtensionNames = extensions.data();
  check(env, fn::vkCreateDevice(physical.handle, &deviceInfo, nullptr, &context->device), "vkCreateDevice");
  fn::vkGetDeviceQueue(context->device, context->queueFamily, 0, &context->queue);
  if (statistics) {
    context->getPipelineExecutableProperties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        fn::vkGetDeviceProcAddr(context->device, "vkGetPipelineExecutablePropertiesKHR"));
    context->getPipelineExecutableStatistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        fn::vkGetDeviceProcAddr(context->device, "vkGetPipelineExecutableStatisticsKHR"));
  }

  VkCommandPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = context->queueFamily;
  check(env, fn::vkCreateCommandPool(context->device, &poolInfo, nullptr, &context->commandPool),
        "vkCreateCommandPool");

  std::vector<char> initial;
  if (!options.pipelineCachePath.empty()) initial = readPipelineCache(options.pipelineCachePath, physical.properties);
  VkPipelineCacheCreateInfo cacheInfo{};
  cacheInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  cacheInfo.initialDataSize = initial.size();
  cacheInfo.pInitialData = initial.empty() ? nullptr : initial.data();
  check(env, fn::vkCreatePipelineCache(context->device, &cacheInfo, nullptr, &context->pipelineCache),
        "vkCreatePipelineCache");
  return context;
}
