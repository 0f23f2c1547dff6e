// dlopen-based Vulkan loader binding: see vk.hpp for why.
#include "vk.hpp"

#include <dlfcn.h>

namespace fn {
PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
#define PPL_VK_DEFINE(name) PFN_##name name = nullptr;
PPL_VK_GLOBAL_FUNCTIONS(PPL_VK_DEFINE)
PPL_VK_INSTANCE_FUNCTIONS(PPL_VK_DEFINE)
#undef PPL_VK_DEFINE
}  // namespace fn

std::string loadVulkanLibrary() {
  static bool tried = false;
  static std::string reason;
  if (tried) return reason;
  tried = true;

  void* library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* detail = dlerror();
    reason = "libvulkan.so.1 not found (install the Vulkan loader, Debian package libvulkan1)";
    if (detail) reason += std::string("; dlopen: ") + detail;
    return reason;
  }
  fn::vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
  if (!fn::vkGetInstanceProcAddr) {
    reason = "libvulkan.so.1 has no vkGetInstanceProcAddr";
    return reason;
  }
#define PPL_VK_LOAD_GLOBAL(name)                                                         \
  fn::name = reinterpret_cast<PFN_##name>(fn::vkGetInstanceProcAddr(nullptr, #name)); \
  if (!fn::name) {                                                                     \
    reason = "libvulkan.so.1 has no " #name;                                           \
    return reason;                                                                     \
  }
  PPL_VK_GLOBAL_FUNCTIONS(PPL_VK_LOAD_GLOBAL)
#undef PPL_VK_LOAD_GLOBAL
  fn::vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      fn::vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
  return reason;
}

std::string loadInstanceFunctions(VkInstance instance) {
#define PPL_VK_LOAD_INSTANCE(name)                                                        \
  fn::name = reinterpret_cast<PFN_##name>(fn::vkGetInstanceProcAddr(instance, #name)); \
  if (!fn::name) return #name;
  PPL_VK_INSTANCE_FUNCTIONS(PPL_VK_LOAD_INSTANCE)
#undef PPL_VK_LOAD_INSTANCE
  return "";
}
