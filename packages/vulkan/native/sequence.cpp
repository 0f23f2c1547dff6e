#include "sequence.hpp"

#include <algorithm>

#include "addon.hpp"
#include "args.hpp"
#include "errors.hpp"
#include "fence_waiter.hpp"
#include "manager.hpp"

namespace {
constexpr VkPipelineStageFlags kWorkStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kWorkAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkAccessFlags kWorkWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr uint32_t kSetsPerPool = 64;
constexpr uint32_t kDescriptorsPerPool = 512;
}  // namespace

SequenceState::~SequenceState() {
  batch.reset();  // waits if the GPU still runs it, before pools go away
  for (VkDescriptorPool pool : pools) fn::vkDestroyDescriptorPool(context->device, pool, nullptr);
}

Napi::Function Sequence::define(Napi::Env env) {
  return DefineClass(env, "Sequence",
                     {
                         InstanceMethod<&Sequence::dispatch>("dispatch"),
                         InstanceMethod<&Sequence::copy>("copy"),
                         InstanceMethod<&Sequence::submit>("submit"),
                         InstanceMethod<&Sequence::submitSync>("submitSync"),
                         InstanceAccessor<&Sequence::commandCount>("commandCount"),
                         InstanceAccessor<&Sequence::running>("running"),
                         InstanceAccessor<&Sequence::destroyed>("destroyed"),
                         InstanceMethod<&Sequence::destroy>("destroy"),
                     });
}

Sequence::Sequence(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Sequence>(info) {
  Napi::Env env = info.Env();
  info.This().As<Napi::Object>().TypeTag(&kSequenceTag);
  std::shared_ptr<Context> context = Manager::contextOf(env, info[0]);
  auto state = std::make_shared<SequenceState>(context);
  state->batch = std::make_shared<CommandBatch>(env, context);
  state_ = state;
}

std::shared_ptr<SequenceState> Sequence::live(Napi::Env env) const {
  if (!state_) throwError(env, "Sequence was destroyed");
  return state_;
}

void Sequence::beforeCommand(Napi::Env env, SequenceState& state) {
  if (state.ended) throwError(env, "Sequence was already submitted; record commands into a new Sequence");
  VkCommandBuffer cb = state.batch->commandBuffer();
  if (!state.recording) {
    state.batch->begin(env);
    state.recording = true;
    // Order after everything submitted earlier (other sequences, transfers).
    memoryBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, kWorkStages, kWorkAccess);
  } else {
    memoryBarrier(cb, kWorkStages, kWorkWrites, kWorkStages, kWorkAccess);
  }
}

VkDescriptorSet Sequence::allocateSet(Napi::Env env, SequenceState& state, const AlgorithmState& algorithm) {
  uint32_t needed = algorithm.bufferCount;
  if (state.pools.empty() || state.setsLeft == 0 || state.descriptorsLeft < needed) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(kDescriptorsPerPool, needed)};
    VkDescriptorPoolCreateInfo poolInfo{};
    poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    poolInfo.maxSets = kSetsPerPool;
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    check(env, fn::vkCreateDescriptorPool(state.context->device, &poolInfo, nullptr, &pool), "vkCreateDescriptorPool");
    state.pools.push_back(pool);
    state.setsLeft = kSetsPerPool;
    state.descriptorsLeft = size.descriptorCount;
  }
  VkDescriptorSetAllocateInfo allocateInfo{};
  allocateInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  allocateInfo.descriptorPool = state.pools.back();
  allocateInfo.descriptorSetCount = 1;
  allocateInfo.pSetLayouts = &algorithm.setLayout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  check(env, fn::vkAllocateDescriptorSets(state.context->device, &allocateInfo, &set), "vkAllocateDescriptorSets");
  state.setsLeft--;
  state.descriptorsLeft -= needed;
  return set;
}

// Unwraps a JS Buffer argument that must belong to `context`.
static std::shared_ptr<BufferState> bufferArgument(Napi::Env env, const Napi::Value& value,
                                                   const std::shared_ptr<Context>& context, const std::string& what) {
  requireTag(env, value, kBufferTag, what);
  std::shared_ptr<BufferState> buffer = Buffer::Unwrap(value.As<Napi::Object>())->live(env);
  if (buffer->storage->context() != context) throwError(env, what + " belongs to another manager");
  return buffer;
}

// dispatch(algorithm, buffers[], x, y, z, pushConstants?)
Napi::Value Sequence::dispatch(const Napi::CallbackInfo& info) {
  requireThis(info, kSequenceTag);
  Napi::Env env = info.Env();
  std::shared_ptr<SequenceState> state = live(env);
  if (state->ended) throwError(env, "Sequence was already submitted; record commands into a new Sequence");
  requireTag(env, info[0], kAlgorithmTag, "algorithm");
  std::shared_ptr<AlgorithmState> algorithm = Algorithm::Unwrap(info[0].As<Napi::Object>())->live(env);
  if (algorithm->building || algorithm->pipeline == VK_NULL_HANDLE) {
    throwError(env, "the algorithm's pipeline is not built yet: await its build() before recording it");
  }
  if (algorithm->context != state->context) throwError(env, "algorithm belongs to another manager");
  const VkPhysicalDeviceLimits& limits = state->context->limits();

  if (!info[1].IsArray()) throwTypeError(env, "buffers must be an array of Buffer");
  Napi::Array list = info[1].As<Napi::Array>();
  if (list.Length() != algorithm->bufferCount) {
    throwRangeError(env, "the algorithm takes " + std::to_string(algorithm->bufferCount) + " buffers, got " +
                             std::to_string(list.Length()));
  }
  std::vector<std::shared_ptr<BufferState>> buffers;
  for (uint32_t i = 0; i < list.Length(); i++) {
    std::shared_ptr<BufferState> buffer = bufferArgument(env, list.Get(i), state->context, "buffers[" + std::to_string(i) + "]");
    // Binding more than maxStorageBufferRange is invalid usage of
    // vkUpdateDescriptorSets: refused as the memory the device lacks.
    if (buffer->storage->size() > limits.maxStorageBufferRange) {
      throwOutOfDeviceMemory(env, "vkUpdateDescriptorSets",
                             MemoryShortfall{buffer->storage->size(), limits.maxStorageBufferRange, 0, "maxStorageBufferRange"},
                             "buffers[" + std::to_string(i) + "] has " + std::to_string(buffer->storage->size()) +
                                 " bytes, more than the device's maxStorageBufferRange (" +
                                 std::to_string(limits.maxStorageBufferRange) +
                                 ") that one binding can reach; refused before calling Vulkan");
    }
    buffers.push_back(buffer);
  }

  uint32_t groups[3];
  for (uint32_t axis = 0; axis < 3; axis++) {
    const char* names[] = {"groupCountX", "groupCountY", "groupCountZ"};
    uint64_t count = toIndexOr(env, info[2 + axis], names[axis], 1);
    if (count > limits.maxComputeWorkGroupCount[axis]) {
      throwRangeError(env, std::string(names[axis]) + " " + std::to_string(count) + " exceeds maxComputeWorkGroupCount (" +
                               std::to_string(limits.maxComputeWorkGroupCount[axis]) + ")");
    }
    groups[axis] = static_cast<uint32_t>(count);
  }

  ByteView push;
  if (info.Length() > 5 && !info[5].IsUndefined()) push = toBytes(env, info[5], "pushConstants");
  if (push.length != algorithm->pushConstantSize) {
    throwRangeError(env, "the algorithm takes " + std::to_string(algorithm->pushConstantSize) +
                             " bytes of push constants, got " + std::to_string(push.length));
  }

  // Everything is validated: record.
  beforeCommand(env, *state);
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (algorithm->bufferCount > 0) {
    set = allocateSet(env, *state, *algorithm);
    std::vector<VkDescriptorBufferInfo> bufferInfos(buffers.size());
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    for (size_t i = 0; i < buffers.size(); i++) {
      bufferInfos[i] = VkDescriptorBufferInfo{buffers[i]->storage->buffer(), 0, VK_WHOLE_SIZE};
      writes[i] = VkWriteDescriptorSet{};
      writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[i].dstSet = set;
      writes[i].dstBinding = static_cast<uint32_t>(i);
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &bufferInfos[i];
    }
    fn::vkUpdateDescriptorSets(state->context->device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }
  VkCommandBuffer cb = state->batch->commandBuffer();
  fn::vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, algorithm->pipeline);
  if (set != VK_NULL_HANDLE) {
    fn::vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, algorithm->pipelineLayout, 0, 1, &set, 0, nullptr);
  }
  if (push.length > 0) {
    fn::vkCmdPushConstants(cb, algorithm->pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           static_cast<uint32_t>(push.length), push.data);
  }
  fn::vkCmdDispatch(cb, groups[0], groups[1], groups[2]);
  state->commandCount++;
  state->algorithms.push_back(algorithm);
  for (auto& buffer : buffers) state->buffers.push_back(buffer);
  return info.This();
}

// copy(src, dst, byteLength = src.byteLength - srcOffset, srcOffset = 0, dstOffset = 0)
Napi::Value Sequence::copy(const Napi::CallbackInfo& info) {
  requireThis(info, kSequenceTag);
  Napi::Env env = info.Env();
  std::shared_ptr<SequenceState> state = live(env);
  std::shared_ptr<BufferState> src = bufferArgument(env, info[0], state->context, "source buffer");
  std::shared_ptr<BufferState> dst = bufferArgument(env, info[1], state->context, "destination buffer");
  uint64_t srcOffset = toIndexOr(env, info[3], "srcOffset", 0);
  uint64_t dstOffset = toIndexOr(env, info[4], "dstOffset", 0);
  if (srcOffset > src->byteLength) throwRangeError(env, "srcOffset is past the end of the source buffer");
  uint64_t length = toIndexOr(env, info[2], "byteLength", src->byteLength - srcOffset);
  if (length == 0) throwRangeError(env, "copy byteLength must be at least 1");
  if (length > src->byteLength - srcOffset) throwRangeError(env, "copy reads past the end of the source buffer");
  if (dstOffset > dst->byteLength || length > dst->byteLength - dstOffset) {
    throwRangeError(env, "copy writes past the end of the destination buffer");
  }
  if (src == dst && srcOffset < dstOffset + length && dstOffset < srcOffset + length) {
    throwRangeError(env, "copy source and destination ranges overlap");
  }
  beforeCommand(env, *state);
  VkBufferCopy region{srcOffset, dstOffset, length};
  fn::vkCmdCopyBuffer(state->batch->commandBuffer(), src->storage->buffer(), dst->storage->buffer(), 1, &region);
  state->commandCount++;
  state->buffers.push_back(src);
  state->buffers.push_back(dst);
  return info.This();
}

void Sequence::prepareSubmit(Napi::Env env, SequenceState& state) {
  for (const auto& buffer : state.buffers) {
    if (buffer->destroyed) throwError(env, "Sequence uses a Buffer that was destroyed");
  }
  for (const auto& algorithm : state.algorithms) {
    if (algorithm->destroyed) throwError(env, "Sequence uses an Algorithm that was destroyed");
  }
  if (state.batch->inFlight()) throwError(env, "Sequence is still running; await submit() before submitting again");
  if (state.ended) return;
  VkCommandBuffer cb = state.batch->commandBuffer();
  if (!state.recording) {
    state.batch->begin(env);
    state.recording = true;
  }
  // Make every write visible to the host (mapped reads) and to later work.
  memoryBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                VK_ACCESS_HOST_READ_BIT | VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  state.batch->end(env);
  state.ended = true;
}

// submit() -> Promise<void>, settled from a worker thread's fence wait.
Napi::Value Sequence::submit(const Napi::CallbackInfo& info) {
  requireThis(info, kSequenceTag);
  Napi::Env env = info.Env();
  std::shared_ptr<SequenceState> state = live(env);
  prepareSubmit(env, *state);
  state->batch->submit(env);
  return waitAsync(env, state->batch, state, nullptr);
}

// submitSync(): submits and blocks until the GPU is done.
Napi::Value Sequence::submitSync(const Napi::CallbackInfo& info) {
  requireThis(info, kSequenceTag);
  Napi::Env env = info.Env();
  std::shared_ptr<SequenceState> state = live(env);
  prepareSubmit(env, *state);
  state->batch->submitAndWait(env);
  return env.Undefined();
}

Napi::Value Sequence::commandCount(const Napi::CallbackInfo& info) {
  requireThis(info, kSequenceTag);
  return Napi::Number::New(info.Env(), live(info.Env())->commandCount);
}

Napi::Value Sequence::running(const Napi::CallbackInfo& info) {
  requireThis(info, kSequenceTag);
  return Napi::Boolean::New(info.Env(), live(info.Env())->batch->inFlight());
}

Napi::Value Sequence::destroyed(const Napi::CallbackInfo& info) {
  requireThis(info, kSequenceTag);
  return Napi::Boolean::New(info.Env(), !state_);
}

// Drops this wrapper's reference; a running submission keeps the state (and
// the command buffer) alive until its fence signals.
Napi::Value Sequence::destroy(const Napi::CallbackInfo& info) {
  requireThis(info, kSequenceTag);
  state_.reset();
  return info.Env().Undefined();
}
