#include "commands.hpp"

#include "errors.hpp"
#include "test_hooks.hpp"

CommandBatch::CommandBatch(Napi::Env env, std::shared_ptr<Context> context) : context_(std::move(context)) {
  VkCommandBufferAllocateInfo allocateInfo{};
  allocateInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocateInfo.commandPool = context_->commandPool;
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = 1;
  check(env, fn::vkAllocateCommandBuffers(context_->device, &allocateInfo, &commandBuffer_),
        "vkAllocateCommandBuffers");

  VkFenceCreateInfo fenceInfo{};
  fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  VkResult result = fn::vkCreateFence(context_->device, &fenceInfo, nullptr, &fence_);
  if (result != VK_SUCCESS) {
    fn::vkFreeCommandBuffers(context_->device, context_->commandPool, 1, &commandBuffer_);
    throwVulkanError(env, "vkCreateFence", result);
  }
  countAllocation(AllocationKind::CommandBuffer);
}

CommandBatch::~CommandBatch() {
  // Never free a command buffer the GPU may still execute.
  if (inFlight_) fn::vkWaitForFences(context_->device, 1, &fence_, VK_TRUE, UINT64_MAX);
  fn::vkDestroyFence(context_->device, fence_, nullptr);
  fn::vkFreeCommandBuffers(context_->device, context_->commandPool, 1, &commandBuffer_);
}

void CommandBatch::begin(Napi::Env env) {
  VkCommandBufferBeginInfo beginInfo{};
  beginInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  check(env, fn::vkBeginCommandBuffer(commandBuffer_, &beginInfo), "vkBeginCommandBuffer");
}

void CommandBatch::end(Napi::Env env) { check(env, fn::vkEndCommandBuffer(commandBuffer_), "vkEndCommandBuffer"); }

void CommandBatch::submit(Napi::Env env) {
  if (inFlight_) throwError(env, "the command batch is still running; await its completion before submitting again");
  context_->requireAlive(env, "vkQueueSubmit");
  check(env, fn::vkResetFences(context_->device, 1, &fence_), "vkResetFences");
  VkSubmitInfo submitInfo{};
  submitInfo.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submitInfo.commandBufferCount = 1;
  submitInfo.pCommandBuffers = &commandBuffer_;
  // An injected failure (test hook) stands for a submission the driver refused: none is made.
  VkResult result = injectedFault("vkQueueSubmit");
  if (result == VK_SUCCESS) result = fn::vkQueueSubmit(context_->queue, 1, &submitInfo, fence_);
  context_->noteResult(result, "vkQueueSubmit");
  check(env, result, "vkQueueSubmit");
  inFlight_ = true;
}

// Runs on the fence-wait thread too: no JS here.
VkResult CommandBatch::waitBlocking(uint64_t timeoutNs) const {
  VkResult result = fn::vkWaitForFences(context_->device, 1, &fence_, VK_TRUE, timeoutNs);
  // An injected failure (test hook) replaces a finished wait only, so the work is really done.
  if (result == VK_SUCCESS) {
    VkResult injected = injectedFault("vkWaitForFences");
    if (injected != VK_SUCCESS) result = injected;
  }
  context_->noteResult(result, "vkWaitForFences");
  return result;
}

void CommandBatch::submitAndWait(Napi::Env env) {
  submit(env);
  VkResult result = waitBlocking();
  inFlight_ = false;
  check(env, result, "vkWaitForFences");
}

void memoryBarrier(VkCommandBuffer commandBuffer, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = srcAccess;
  barrier.dstAccessMask = dstAccess;
  fn::vkCmdPipelineBarrier(commandBuffer, srcStage, dstStage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}
