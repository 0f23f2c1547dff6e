// A command buffer with its own fence: recorded once, submitted to the
// manager's queue any number of times, waited on either synchronously or off
// the main thread. Used by sequences and by staging transfers.
#pragma once
#include <napi.h>

#include <functional>
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
  // Blocks until the fence signals. Safe on any thread; does not touch JS.
  VkResult waitBlocking() const;
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

// Runs after the fence of a submitted batch signals, on the main thread; it
// returns the value the promise resolves with (or throws to reject it).
using CompletionFn = std::function<Napi::Value(Napi::Env)>;

// Waits for `batch` on a libuv worker thread so the event loop keeps running,
// then settles the returned promise. `keepAlive` holds whatever the GPU work
// uses (the batch's owner, buffers) until the wait is over.
Napi::Promise waitAsync(Napi::Env env, std::shared_ptr<CommandBatch> batch, std::shared_ptr<void> keepAlive,
                        CompletionFn onComplete);
