// Test hooks: device faults that a test cannot provoke on lavapipe on demand.
// - testHooks.failCall(call, result, skip): after `skip` more calls of `call`
//   ("vkQueueSubmit", "vkWaitForFences", "vkAllocateMemory"), the next one
//   reports `result` (e.g. "VK_ERROR_DEVICE_LOST"). A submission that fails so
//   is never made; a wait fails only after the work really finished, so no
//   command buffer is left running that a test would then free.
//   PPL_VULKAN_TEST_FAULT=<call>:<result>[:<skip>] arms the same at the first
//   check, for a test that runs the command line as a child process.
// - PPL_VULKAN_TEST_HEAP_LIMIT=<bytes>: managers created while it is set
//   count every memory heap as holding at most that many bytes, so a model
//   "larger than the device" needs no gigabytes (lavapipe's heap is host
//   memory, and it never fails an allocation itself).
// - testHooks.live(): how many device contexts (managers' devices) and device
//   buffers exist in this process, for a soak test to see that runs leave
//   none behind, exactly, where memory figures are noisy.
// - testHooks.allocations(): how many staging buffers and command buffers were
//   allocated in this process so far, for a test to see that transfers reuse
//   staging memory instead of allocating it each time.
// Nothing changes unless a test arms them.
#pragma once
#include <napi.h>

#include <cstdint>

#include "vk.hpp"

// The injected result for this call of `call`, or VK_SUCCESS (the usual case).
VkResult injectedFault(const char* call);

// The heap limit of PPL_VULKAN_TEST_HEAP_LIMIT, or 0 when unset.
uint64_t testHeapLimit();

// Counts of live native objects, for testHooks.live().
enum class LiveKind { Context, Buffer };
void countLive(LiveKind kind, int delta);

// Counts of allocations made so far, for testHooks.allocations().
enum class AllocationKind { StagingBuffer, CommandBuffer };
void countAllocation(AllocationKind kind);

// The JS object { failCall(call, result, skip = 0), clear(), live(), allocations() }.
Napi::Object testHooksObject(Napi::Env env);
