#include "instance.hpp"

#include "errors.hpp"

VkInstance getInstance(std::string& reason) {
  static VkInstance instance = VK_NULL_HANDLE;
  if (instance != VK_NULL_HANDLE) return instance;

  reason = loadVulkanLibrary();
  if (!reason.empty()) return VK_NULL_HANDLE;

  // Vulkan 1.1 is the floor: subgroup properties, vkGetPhysicalDeviceProperties2
  // and SPIR-V 1.3 are core there. Ask for 1.2 when the loader has it.
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (fn::vkEnumerateInstanceVersion) fn::vkEnumerateInstanceVersion(&loaderVersion);
  if (loaderVersion < VK_API_VERSION_1_1) {
    reason = "the Vulkan loader supports only Vulkan 1.0; 1.1 or newer is required";
    return VK_NULL_HANDLE;
  }

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "ppl";
  app.pEngineName = "ppl-vulkan";
  app.apiVersion = loaderVersion >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1;

  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;

  VkInstance created = VK_NULL_HANDLE;
  VkResult result = fn::vkCreateInstance(&info, nullptr, &created);
  if (result != VK_SUCCESS) {
    reason = std::string("vkCreateInstance failed: ") + vkResultName(result);
    if (result == VK_ERROR_INCOMPATIBLE_DRIVER) reason += " (no Vulkan driver (ICD) is installed or usable)";
    return VK_NULL_HANDLE;
  }
  std::string missing = loadInstanceFunctions(created);
  if (!missing.empty()) {
    reason = "the Vulkan loader has no " + missing;
    if (fn::vkDestroyInstance) fn::vkDestroyInstance(created, nullptr);
    return VK_NULL_HANDLE;
  }
  instance = created;
  return instance;
}
