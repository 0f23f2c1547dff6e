// The process-wide VkInstance. One instance serves every manager and every
// device listing; it lives until the process exits.
#pragma once
#include <string>

#include "vk.hpp"

// Returns the instance, creating it on first use, or VK_NULL_HANDLE with
// `reason` set ("libvulkan.so.1 not found", "vkCreateInstance failed: ...").
// A failure is not cached, so a later call tries again.
VkInstance getInstance(std::string& reason);
