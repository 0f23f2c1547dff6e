#include "devices.hpp"

#include <cstring>

#include "errors.hpp"
#include "instance.hpp"

static bool hasExtension(const std::vector<VkExtensionProperties>& extensions, const char* name) {
  for (const auto& extension : extensions) {
    if (std::strcmp(extension.extensionName, name) == 0) return true;
  }
  return false;
}

// One feature structure of the device (its sType given), queried through vkGetPhysicalDeviceFeatures2.
template <typename Features>
static Features queryFeatures(VkPhysicalDevice device, VkStructureType type) {
  Features features{};
  features.sType = type;
  VkPhysicalDeviceFeatures2 features2{};
  features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features2.pNext = &features;
  fn::vkGetPhysicalDeviceFeatures2(device, &features2);
  features.pNext = nullptr;
  return features;
}

static PhysicalDeviceInfo describe(VkPhysicalDevice device) {
  PhysicalDeviceInfo info;
  info.handle = device;
  fn::vkGetPhysicalDeviceProperties(device, &info.properties);
  fn::vkGetPhysicalDeviceMemoryProperties(device, &info.memory);
  fn::vkGetPhysicalDeviceFeatures(device, &info.features);
  const uint32_t api = info.properties.apiVersion;

  uint32_t extensionCount = 0;
  fn::vkEnumerateDeviceExtensionProperties(device, nullptr, &extensionCount, nullptr);
  std::vector<VkExtensionProperties> extensions(extensionCount);
  fn::vkEnumerateDeviceExtensionProperties(device, nullptr, &extensionCount, extensions.data());

  if (api < VK_API_VERSION_1_1) {
    info.rejected = "Vulkan 1.1 or newer is required";
  } else {
    // Only chain structures the device's version or extensions define (valid usage).
    VkPhysicalDeviceProperties2 properties2{};
    properties2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    info.subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    properties2.pNext = &info.subgroup;
    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    if (api >= VK_API_VERSION_1_2 || hasExtension(extensions, "VK_KHR_driver_properties")) {
      driver.pNext = properties2.pNext;
      properties2.pNext = &driver;
    }
    VkPhysicalDeviceMaintenance4Properties maintenance4{};
    maintenance4.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES;
    if (api >= VK_API_VERSION_1_3) {
      maintenance4.pNext = properties2.pNext;
      properties2.pNext = &maintenance4;
    }
    fn::vkGetPhysicalDeviceProperties2(device, &properties2);
    info.driverName = driver.driverName;
    info.driverInfo = driver.driverInfo;
    info.maxBufferSize = maintenance4.maxBufferSize;

    if (hasExtension(extensions, "VK_EXT_shader_atomic_float")) {
      const auto atomic = queryFeatures<VkPhysicalDeviceShaderAtomicFloatFeaturesEXT>(device, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT);
      info.atomicFloat.extension = true;
      info.atomicFloat.bufferFloat32Atomics = atomic.shaderBufferFloat32Atomics;
      info.atomicFloat.bufferFloat32AtomicAdd = atomic.shaderBufferFloat32AtomicAdd;
      info.atomicFloat.bufferFloat64Atomics = atomic.shaderBufferFloat64Atomics;
      info.atomicFloat.bufferFloat64AtomicAdd = atomic.shaderBufferFloat64AtomicAdd;
      info.atomicFloat.sharedFloat32AtomicAdd = atomic.shaderSharedFloat32AtomicAdd;
      info.atomicFloat.sharedFloat64AtomicAdd = atomic.shaderSharedFloat64AtomicAdd;
    }
    // Core in Vulkan 1.1 (checked above), so the structure may always be chained.
    info.storageBuffer16BitAccess =
        queryFeatures<VkPhysicalDevice16BitStorageFeatures>(device, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES).storageBuffer16BitAccess == VK_TRUE;
    if (hasExtension(extensions, "VK_KHR_shader_clock")) {
      info.shaderSubgroupClock =
          queryFeatures<VkPhysicalDeviceShaderClockFeaturesKHR>(device, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR).shaderSubgroupClock == VK_TRUE;
    }
    if (hasExtension(extensions, "VK_KHR_pipeline_executable_properties")) {
      info.pipelineExecutableInfo = queryFeatures<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
                                        device, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR)
                                        .pipelineExecutableInfo == VK_TRUE;
    }
  }

  uint32_t familyCount = 0;
  fn::vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  fn::vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, families.data());
  for (uint32_t i = 0; i < familyCount; i++) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].queueCount > 0) {
      info.computeQueueFamily = static_cast<int>(i);
      break;
    }
  }
  if (info.rejected.empty() && info.computeQueueFamily < 0) info.rejected = "no compute queue";
  return info;
}

std::vector<PhysicalDeviceInfo> discoverDevices(std::string& reason) {
  std::vector<PhysicalDeviceInfo> result;
  VkInstance instance = getInstance(reason);
  if (instance == VK_NULL_HANDLE) return result;

  uint32_t count = 0;
  VkResult status = fn::vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (status == VK_SUCCESS && count > 0) status = fn::vkEnumeratePhysicalDevices(instance, &count, devices.data());
  if (status != VK_SUCCESS && status != VK_INCOMPLETE) {
    reason = std::string("vkEnumeratePhysicalDevices failed: ") + vkResultName(status);
    return result;
  }
  devices.resize(count);
  if (devices.empty()) {
    reason = "the Vulkan loader found no physical device (no driver (ICD) installed, or VK_ICD_FILENAMES / "
             "VK_DRIVER_FILES point at none)";
    return result;
  }
  for (VkPhysicalDevice device : devices) result.push_back(describe(device));
  return result;
}

static const char* deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

static std::string versionString(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

static Napi::Array uintArray(Napi::Env env, const uint32_t* values, uint32_t count) {
  Napi::Array array = Napi::Array::New(env, count);
  for (uint32_t i = 0; i < count; i++) array.Set(i, Napi::Number::New(env, values[i]));
  return array;
}

static Napi::Array subgroupOperations(Napi::Env env, VkSubgroupFeatureFlags flags) {
  static const std::pair<VkSubgroupFeatureFlagBits, const char*> names[] = {
      {VK_SUBGROUP_FEATURE_BASIC_BIT, "basic"},
      {VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"},
      {VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "shuffle"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "shuffleRelative"},
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "clustered"},
      {VK_SUBGROUP_FEATURE_QUAD_BIT, "quad"},
  };
  Napi::Array array = Napi::Array::New(env);
  uint32_t n = 0;
  for (const auto& [bit, name] : names) {
    if (flags & bit) array.Set(n++, Napi::String::New(env, name));
  }
  return array;
}

static Napi::Object toJs(Napi::Env env, const PhysicalDeviceInfo& info, uint32_t index) {
  const VkPhysicalDeviceLimits& limits = info.properties.limits;
  Napi::Object out = Napi::Object::New(env);
  out.Set("index", index);
  out.Set("name", info.properties.deviceName);
  out.Set("type", deviceTypeName(info.properties.deviceType));
  out.Set("apiVersion", versionString(info.properties.apiVersion));
  out.Set("driver", info.driverName.empty() ? std::string("unknown") : info.driverName);
  out.Set("driverInfo", info.driverInfo);
  out.Set("vendorId", info.properties.vendorID);
  out.Set("deviceId", info.properties.deviceID);

  Napi::Array heaps = Napi::Array::New(env, info.memory.memoryHeapCount);
  for (uint32_t i = 0; i < info.memory.memoryHeapCount; i++) {
    Napi::Object heap = Napi::Object::New(env);
    heap.Set("size", static_cast<double>(info.memory.memoryHeaps[i].size));
    heap.Set("deviceLocal", (info.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0);
    heaps.Set(i, heap);
  }
  out.Set("memoryHeaps", heaps);
  bool hostVisibleDeviceLocal = false;
  const VkMemoryPropertyFlags unified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < info.memory.memoryTypeCount; i++) {
    if ((info.memory.memoryTypes[i].propertyFlags & unified) == unified) hostVisibleDeviceLocal = true;
  }
  out.Set("hostVisibleDeviceLocal", hostVisibleDeviceLocal);

  Napi::Object jsLimits = Napi::Object::New(env);
  jsLimits.Set("maxComputeWorkGroupSize", uintArray(env, limits.maxComputeWorkGroupSize, 3));
  jsLimits.Set("maxComputeWorkGroupInvocations", limits.maxComputeWorkGroupInvocations);
  jsLimits.Set("maxComputeWorkGroupCount", uintArray(env, limits.maxComputeWorkGroupCount, 3));
  jsLimits.Set("maxComputeSharedMemorySize", limits.maxComputeSharedMemorySize);
  jsLimits.Set("maxStorageBufferRange", limits.maxStorageBufferRange);
  jsLimits.Set("maxPushConstantsSize", limits.maxPushConstantsSize);
  jsLimits.Set("maxPerStageDescriptorStorageBuffers", limits.maxPerStageDescriptorStorageBuffers);
  jsLimits.Set("maxBufferSize", static_cast<double>(info.maxBufferSize));
  jsLimits.Set("minStorageBufferOffsetAlignment", static_cast<double>(limits.minStorageBufferOffsetAlignment));
  jsLimits.Set("timestampPeriod", limits.timestampPeriod);
  out.Set("limits", jsLimits);

  Napi::Object subgroup = Napi::Object::New(env);
  subgroup.Set("size", info.subgroup.subgroupSize);
  subgroup.Set("operations", subgroupOperations(env, info.subgroup.supportedOperations));
  subgroup.Set("inCompute", (info.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0);
  out.Set("subgroup", subgroup);

  Napi::Object features = Napi::Object::New(env);
  features.Set("shaderFloat64", info.features.shaderFloat64 == VK_TRUE);
  features.Set("shaderInt64", info.features.shaderInt64 == VK_TRUE);
  features.Set("shaderInt16", info.features.shaderInt16 == VK_TRUE);
  Napi::Object atomics = Napi::Object::New(env);
  atomics.Set("extension", info.atomicFloat.extension);
  atomics.Set("bufferFloat32Atomics", info.atomicFloat.bufferFloat32Atomics);
  atomics.Set("bufferFloat32AtomicAdd", info.atomicFloat.bufferFloat32AtomicAdd);
  atomics.Set("bufferFloat64Atomics", info.atomicFloat.bufferFloat64Atomics);
  atomics.Set("bufferFloat64AtomicAdd", info.atomicFloat.bufferFloat64AtomicAdd);
  atomics.Set("sharedFloat32AtomicAdd", info.atomicFloat.sharedFloat32AtomicAdd);
  atomics.Set("sharedFloat64AtomicAdd", info.atomicFloat.sharedFloat64AtomicAdd);
  features.Set("atomicFloat", atomics);
  features.Set("pipelineExecutableInfo", info.pipelineExecutableInfo);
  features.Set("storageBuffer16BitAccess", info.storageBuffer16BitAccess);
  features.Set("shaderSubgroupClock", info.shaderSubgroupClock);
  out.Set("features", features);

  out.Set("rejected", info.rejected.empty() ? env.Null() : Napi::String::New(env, info.rejected));
  return out;
}

Napi::Value ListDevices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string reason;
  std::vector<PhysicalDeviceInfo> devices = discoverDevices(reason);
  Napi::Object result = Napi::Object::New(env);
  Napi::Array list = Napi::Array::New(env, devices.size());
  for (uint32_t i = 0; i < devices.size(); i++) list.Set(i, toJs(env, devices[i], i));
  result.Set("devices", list);
  result.Set("reason", reason.empty() ? env.Null() : Napi::String::New(env, "no device: " + reason));
  return result;
}
