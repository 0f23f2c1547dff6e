// Vulkan entry points, resolved at run time from libvulkan.so.1 (see loader.cpp).
// The addon never links against libvulkan, so it loads on machines that have
// no Vulkan loader and can say so instead of failing to load.
#pragma once
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <string>

// Functions resolved with vkGetInstanceProcAddr(NULL, ...).
#define PPL_VK_GLOBAL_FUNCTIONS(X) \
  X(vkCreateInstance)              \
  X(vkEnumerateInstanceExtensionProperties)

// Functions resolved with vkGetInstanceProcAddr(instance, ...). Device-level
// functions are resolved the same way: the loader's trampolines dispatch on the
// device handle, which keeps one table valid for every device.
#define PPL_VK_INSTANCE_FUNCTIONS(X)           \
  X(vkDestroyInstance)                         \
  X(vkEnumeratePhysicalDevices)                \
  X(vkGetPhysicalDeviceProperties)             \
  X(vkGetPhysicalDeviceProperties2)            \
  X(vkGetPhysicalDeviceFeatures)               \
  X(vkGetPhysicalDeviceFeatures2)              \
  X(vkGetPhysicalDeviceMemoryProperties)       \
  X(vkGetPhysicalDeviceQueueFamilyProperties)  \
  X(vkEnumerateDeviceExtensionProperties)      \
  X(vkCreateDevice)                            \
  X(vkDestroyDevice)                           \
  X(vkGetDeviceQueue)                          \
  X(vkGetDeviceProcAddr)                       \
  X(vkDeviceWaitIdle)                          \
  X(vkQueueSubmit)                             \
  X(vkCreateBuffer)                            \
  X(vkDestroyBuffer)                           \
  X(vkGetBufferMemoryRequirements)             \
  X(vkAllocateMemory)                          \
  X(vkFreeMemory)                              \
  X(vkBindBufferMemory)                        \
  X(vkMapMemory)                               \
  X(vkUnmapMemory)                             \
  X(vkCreateShaderModule)                      \
  X(vkDestroyShaderModule)                     \
  X(vkCreateDescriptorSetLayout)               \
  X(vkDestroyDescriptorSetLayout)              \
  X(vkCreatePipelineLayout)                    \
  X(vkDestroyPipelineLayout)                   \
  X(vkCreateComputePipelines)                  \
  X(vkDestroyPipeline)                         \
  X(vkCreatePipelineCache)                     \
  X(vkDestroyPipelineCache)                    \
  X(vkGetPipelineCacheData)                    \
  X(vkCreateDescriptorPool)                    \
  X(vkDestroyDescriptorPool)                   \
  X(vkAllocateDescriptorSets)                  \
  X(vkUpdateDescriptorSets)                    \
  X(vkCreateCommandPool)                       \
  X(vkDestroyCommandPool)                      \
  X(vkAllocateCommandBuffers)                  \
  X(vkFreeCommandBuffers)                      \
  X(vkBeginCommandBuffer)                      \
  X(vkEndCommandBuffer)                        \
  X(vkCmdBindPipeline)                         \
  X(vkCmdBindDescriptorSets)                   \
  X(vkCmdPushConstants)                        \
  X(vkCmdDispatch)                             \
  X(vkCmdCopyBuffer)                           \
  X(vkCmdFillBuffer)                           \
  X(vkCmdPipelineBarrier)                      \
  X(vkCreateFence)                             \
  X(vkDestroyFence)                            \
  X(vkResetFences)                             \
  X(vkWaitForFences)

namespace fn {
extern PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
// Optional: absent from Vulkan 1.0 loaders.
extern PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion;
#define PPL_VK_DECLARE(name) extern PFN_##name name;
PPL_VK_GLOBAL_FUNCTIONS(PPL_VK_DECLARE)
PPL_VK_INSTANCE_FUNCTIONS(PPL_VK_DECLARE)
#undef PPL_VK_DECLARE
}  // namespace fn

// Opens libvulkan.so.1 and resolves the global functions. Returns "" on
// success, otherwise the reason (cached: the library is opened once).
std::string loadVulkanLibrary();

// Resolves instance- and device-level functions for `instance`. Returns the
// name of the first missing function, or "" when all were found.
std::string loadInstanceFunctions(VkInstance instance);
