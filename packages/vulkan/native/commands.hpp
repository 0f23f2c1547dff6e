// A command buffer with its own fence: recorded once, submitted to the
// manager's queue any number of times, waited on either synchronously or off
// the main thread. Used by sequences and by staging transfers.
#pragma once
#include <napi.h>

#include <memory>

#include "context.hpp"

class CommandBatch {
 public:
  CommandBatch(Napi::Env env, std::shared_ptr<Context> context);
  ~CommandBatch();
  CommandBatch(const CommandBatch&) = delete;
  CommandBatch& operator=(const CommandBatch&) = delete;

  VkCommandBuffer commandBuffer() const { return commandBuffer_; }
  const std::shared_ptr<Context>& context() const { return context_; }
  bool inFlight() const { return inFlight_; }

  void begin(Napi::Env env);
  void end(Napi::Env env);
  // Resets the fence and submits; throws when the previous submission has
  // not been waited for.
  void submit(Napi::Env env);
  // Blocks until the fence signals (or the timeout passes: VK_TIMEOUT).
  // Safe on any thread; does not touch JS.
  VkResult waitBlocking(uint64_t timeoutNs = UINT64_MAX) const;
  // Marks the submission as finished (main thread, after a wait returned).
  void finished() { inFlight_ = false; }
  // Submits and waits on the calling thread.
  void submitAndWait(Napi::Env env);

 private:
  std::shared_ptr<Context> context_;
  VkCommandBuffer commandBuffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  bool inFlight_ = false;
};

// Records a global memory barrier (all buffers) into `commandBuffer`.
void memoryBarrier(VkCommandBuffer commandBuffer, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dstStage, VkAccessFlags dstAccess);
