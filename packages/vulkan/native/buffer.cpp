#include "buffer.hpp"

#include <cstring>

#include "addon.hpp"
#include "args.hpp"
#include "commands.hpp"
#include "fence_waiter.hpp"
#include "errors.hpp"
#include "manager.hpp"
#include "staging.hpp"
#include "test_hooks.hpp"

// ---- DeviceBuffer -------------------------------------------------------

DeviceBuffer::DeviceBuffer(Napi::Env env, std::shared_ptr<Context> context, uint64_t size, MemoryKind kind)
    : context_(std::move(context)), size_(size) {
  // A constructor that throws never runs its destructor: release by hand.
  try {
    create(env, kind);
  } catch (...) {
    release();
    throw;
  }
  countLive(LiveKind::Buffer, 1);  // only once constructed: a throwing constructor runs no destructor
  if (kind == MemoryKind::Staging) countAllocation(AllocationKind::StagingBuffer);
}

void DeviceBuffer::create(Napi::Env env, MemoryKind kind) {
  const uint64_t size = size_;
  const PhysicalDeviceInfo& physical = context_->physical;
  context_->requireAlive(env, "vkCreateBuffer");
  // Creating a buffer above maxBufferSize, or allocating more than a heap
  // holds, is invalid usage (undefined behaviour, not an error code), so it is
  // refused here with the error a driver would give for memory it lacks.
  if (physical.maxBufferSize != 0 && size > physical.maxBufferSize) {
    throwOutOfDeviceMemory(env, "vkCreateBuffer", MemoryShortfall{size, physical.maxBufferSize, 0, "maxBufferSize"},
                           std::to_string(size) + " bytes requested, the device's maxBufferSize is " +
                               std::to_string(physical.maxBufferSize) + "; refused before calling Vulkan");
  }

  VkBufferCreateInfo bufferInfo{};
  bufferInfo.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bufferInfo.size = size;
  bufferInfo.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const bool hostMemory = kind == MemoryKind::Staging || kind == MemoryKind::Readback;
  if (!hostMemory) bufferInfo.usage |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(env, fn::vkCreateBuffer(context_->device, &bufferInfo, nullptr, &buffer_), "vkCreateBuffer");

  VkMemoryRequirements requirements;
  fn::vkGetBufferMemoryRequirements(context_->device, buffer_, &requirements);

  const VkMemoryPropertyFlags hostCoherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int memoryType = -1;
  bool mapIt = false;
  if (hostMemory) {
    memoryType = context_->findMemoryType(requirements.memoryTypeBits, hostCoherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (memoryType < 0) memoryType = context_->findMemoryType(requirements.memoryTypeBits, hostCoherent);
    mapIt = true;
  } else if (kind == MemoryKind::Direct) {
    memoryType = context_->findMemoryType(requirements.memoryTypeBits, hostCoherent | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    mapIt = memoryType >= 0;
  }
  VkResult result = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (memoryType >= 0) result = allocate(memoryType, requirements.size);
  // Device kind, or no direct memory type, or its (possibly small BAR) heap
  // is full: plain device-local memory behind staging copies.
  if (result != VK_SUCCESS && !hostMemory) {
    mapIt = false;
    memoryType = context_->findMemoryType(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (memoryType < 0) memoryType = context_->findMemoryType(requirements.memoryTypeBits, 0);
    if (memoryType >= 0) result = allocate(memoryType, requirements.size);
  }
  if (memoryType < 0) throwError(env, "no suitable Vulkan memory type for a buffer");
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY && memory_ == VK_NULL_HANDLE) {
    uint32_t heap = physical.memory.memoryTypes[memoryType].heapIndex;
    uint64_t capacity = context_->heapCapacity(heap);
    uint64_t inUse = context_->heapAllocated[heap].load();
    std::string detail = std::to_string(requirements.size) + " bytes requested, memory heap " + std::to_string(heap) +
                         " holds " + std::to_string(capacity) +
                         (capacity < physical.memory.memoryHeaps[heap].size ? " (PPL_VULKAN_TEST_HEAP_LIMIT)" : "") +
                         " and this manager has " + std::to_string(inUse) + " of them allocated";
    if (requirements.size + inUse > capacity) detail += "; refused before calling Vulkan";
    throwOutOfDeviceMemory(env, "vkAllocateMemory",
                           MemoryShortfall{requirements.size, capacity, inUse, "memory heap " + std::to_string(heap)}, detail);
  }
  check(env, result, "vkAllocateMemory");
  check(env, fn::vkBindBufferMemory(context_->device, buffer_, memory_, 0), "vkBindBufferMemory");
  if (mapIt) check(env, fn::vkMapMemory(context_->device, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
  hostCached_ = (physical.memory.memoryTypes[memoryType].propertyFlags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0;
}

// Reads from an uncached mapping (device memory behind a resizable BAR) cross the bus a word at a
// time: an H200 read 1024 chains' draws back at tens of MB/s, two thirds of a run's time. Past a
// few words a copy into cached staging memory on the queue is far faster.
constexpr uint64_t kUncachedReadBytes = 256;

static bool readsMapped(const DeviceBuffer& storage, uint64_t length) {
  return storage.mapped() != nullptr && (storage.hostCached() || length <= kUncachedReadBytes);
}

// Allocates, unless the request with what this manager already holds exceeds
// the heap (invalid usage to ask, or a refusal the driver may not give).
VkResult DeviceBuffer::allocate(int memoryType, uint64_t size) {
  const VkPhysicalDeviceMemoryProperties& memory = context_->physical.memory;
  const uint32_t heap = memory.memoryTypes[memoryType].heapIndex;
  if (size + context_->heapAllocated[heap].load() > context_->heapCapacity(heap)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  VkResult injected = injectedFault("vkAllocateMemory");
  if (injected != VK_SUCCESS) return injected;
  VkMemoryAllocateInfo allocateInfo{};
  allocateInfo.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocateInfo.allocationSize = size;
  allocateInfo.memoryTypeIndex = static_cast<uint32_t>(memoryType);
  VkResult result = fn::vkAllocateMemory(context_->device, &allocateInfo, nullptr, &memory_);
  if (result == VK_SUCCESS) {
    context_->heapAllocated[heap] += size;
    heap_ = heap;
    allocated_ = size;
  }
  return result;
}

DeviceBuffer::~DeviceBuffer() {
  release();
  countLive(LiveKind::Buffer, -1);
}

void DeviceBuffer::release() {
  if (mapped_) fn::vkUnmapMemory(context_->device, memory_);
  if (buffer_ != VK_NULL_HANDLE) fn::vkDestroyBuffer(context_->device, buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) fn::vkFreeMemory(context_->device, memory_, nullptr);
  context_->heapAllocated[heap_] -= allocated_;
  allocated_ = 0;
  mapped_ = nullptr;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
}

// ---- staging transfers ------------------------------------------------------
// Transfers lease reused staging memory and command buffers (staging.hpp): allocating them per
// transfer cost an H200 run of 1024 chains ~150 ms in thousands of small reads.

// Records "copy src[srcOffset..+size] -> dst[dstOffset..]" into a staging
// lease's batch (replacing what it held), ordered after all earlier GPU work
// and made visible to the host at the end.
static void recordCopy(Napi::Env env, CommandBatch& batch, VkBuffer src, uint64_t srcOffset, VkBuffer dst,
                       uint64_t dstOffset, uint64_t size) {
  VkCommandBuffer cb = batch.commandBuffer();
  batch.begin(env);
  memoryBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  VkBufferCopy region{srcOffset, dstOffset, size};
  fn::vkCmdCopyBuffer(cb, src, dst, 1, &region);
  memoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_READ_BIT);
  batch.end(env);
}

// ---- Buffer (JS class) ------------------------------------------------------

Napi::Function Buffer::define(Napi::Env env) {
  return DefineClass(env, "Buffer",
                     {
                         InstanceAccessor<&Buffer::byteLength>("byteLength"),
                         InstanceAccessor<&Buffer::hostVisible>("hostVisible"),
                         InstanceAccessor<&Buffer::destroyed>("destroyed"),
                         InstanceMethod<&Buffer::write>("write"),
                         InstanceMethod<&Buffer::writeAsync>("writeAsync"),
                         InstanceMethod<&Buffer::read>("read"),
                         InstanceMethod<&Buffer::readAsync>("readAsync"),
                         InstanceMethod<&Buffer::readInto>("readInto"),
                         InstanceMethod<&Buffer::fillZero>("fillZero"),
                         InstanceMethod<&Buffer::destroy>("destroy"),
                     });
}

Buffer::Buffer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Buffer>(info) {
  Napi::Env env = info.Env();
  info.This().As<Napi::Object>().TypeTag(&kBufferTag);
  std::shared_ptr<Context> context = Manager::contextOf(env, info[0]);
  uint64_t byteLength = toIndex(env, info[1], "byteLength");
  if (byteLength == 0) throwRangeError(env, "byteLength must be at least 1");
  // Round up so shaders can always address whole 32-bit words.
  uint64_t size = (byteLength + 3) & ~uint64_t(3);
  // readback (a third argument true): host memory that copies land in and the host reads in
  // place, cached where the device offers it, so a result read back often takes one copy on the
  // queue and a memcpy instead of a staging buffer and a second submission per read.
  const bool readback = info.Length() > 2 && info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();
  MemoryKind kind = readback ? MemoryKind::Readback : context->options.forceStaging ? MemoryKind::Device : MemoryKind::Direct;
  state_ = std::make_shared<BufferState>();
  state_->storage = std::make_unique<DeviceBuffer>(env, context, size, kind);
  state_->byteLength = byteLength;
}

std::shared_ptr<BufferState> Buffer::live(Napi::Env env) const {
  if (!state_ || state_->destroyed) throwError(env, "Buffer was destroyed");
  return state_;
}

Napi::Value Buffer::byteLength(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  return Napi::Number::New(info.Env(), static_cast<double>(live(info.Env())->byteLength));
}

Napi::Value Buffer::hostVisible(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  return Napi::Boolean::New(info.Env(), live(info.Env())->storage->mapped() != nullptr);
}

Napi::Value Buffer::destroyed(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  return Napi::Boolean::New(info.Env(), !state_ || state_->destroyed);
}

// Checks offset/length against the buffer; returns the length.
static uint64_t checkRange(Napi::Env env, const BufferState& state, uint64_t offset, uint64_t length) {
  if (offset > state.byteLength || length > state.byteLength - offset) {
    throwRangeError(env, "range [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                             ") is outside the buffer of " + std::to_string(state.byteLength) + " bytes");
  }
  return length;
}

// write(data, byteOffset = 0)
Napi::Value Buffer::write(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  Napi::Env env = info.Env();
  std::shared_ptr<BufferState> state = live(env);
  ByteView bytes = toBytes(env, info[0], "data");
  uint64_t offset = toIndexOr(env, info[1], "byteOffset", 0);
  checkRange(env, *state, offset, bytes.length);
  if (bytes.length == 0) return env.Undefined();
  if (uint8_t* mapped = state->storage->mapped()) {
    std::memcpy(mapped + offset, bytes.data, bytes.length);
    return env.Undefined();
  }
  std::shared_ptr<StagingLease> staging = StagingLease::acquire(env, state->storage->context(), bytes.length);
  std::memcpy(staging->mapped(), bytes.data, bytes.length);
  recordCopy(env, staging->batch(), staging->buffer(), 0, state->storage->buffer(), offset, bytes.length);
  staging->batch().submitAndWait(env);
  return env.Undefined();
}

// writeAsync(data, byteOffset = 0): the data is copied before this returns,
// so the caller may reuse its array at once.
Napi::Value Buffer::writeAsync(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  Napi::Env env = info.Env();
  std::shared_ptr<BufferState> state = live(env);
  ByteView bytes = toBytes(env, info[0], "data");
  uint64_t offset = toIndexOr(env, info[1], "byteOffset", 0);
  checkRange(env, *state, offset, bytes.length);
  if (bytes.length == 0 || state->storage->mapped()) {
    if (bytes.length > 0) std::memcpy(state->storage->mapped() + offset, bytes.data, bytes.length);
    Napi::Promise::Deferred done = Napi::Promise::Deferred::New(env);
    done.Resolve(env.Undefined());
    return done.Promise();
  }
  std::shared_ptr<StagingLease> staging = StagingLease::acquire(env, state->storage->context(), bytes.length);
  std::memcpy(staging->mapped(), bytes.data, bytes.length);
  recordCopy(env, staging->batch(), staging->buffer(), 0, state->storage->buffer(), offset, bytes.length);
  staging->batch().submit(env);
  // The lease stays held (the staging memory not reused) until the fence waiter lets go of it.
  auto keepAlive = std::make_shared<std::pair<std::shared_ptr<StagingLease>, std::shared_ptr<BufferState>>>(staging, state);
  return waitAsync(env, StagingLease::batchOf(staging), keepAlive, nullptr);
}

// read(byteLength = rest, byteOffset = 0) -> ArrayBuffer
Napi::Value Buffer::read(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  Napi::Env env = info.Env();
  std::shared_ptr<BufferState> state = live(env);
  uint64_t offset = toIndexOr(env, info[1], "byteOffset", 0);
  if (offset > state->byteLength) checkRange(env, *state, offset, 0);
  uint64_t length = checkRange(env, *state, offset, toIndexOr(env, info[0], "byteLength", state->byteLength - offset));
  Napi::ArrayBuffer out = Napi::ArrayBuffer::New(env, length);
  if (length == 0) return out;
  if (readsMapped(*state->storage, length)) {
    std::memcpy(out.Data(), state->storage->mapped() + offset, length);
    return out;
  }
  std::shared_ptr<StagingLease> staging = StagingLease::acquire(env, state->storage->context(), length);
  recordCopy(env, staging->batch(), state->storage->buffer(), offset, staging->buffer(), 0, length);
  staging->batch().submitAndWait(env);
  std::memcpy(out.Data(), staging->mapped(), length);
  return out;
}

// readInto(target, byteOffset = 0): target's byteLength bytes from byteOffset into target (a
// TypedArray, DataView or ArrayBuffer the caller keeps), so that a result read back every round
// allocates nothing on the JavaScript heap.
Napi::Value Buffer::readInto(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  Napi::Env env = info.Env();
  std::shared_ptr<BufferState> state = live(env);
  ByteView target = toBytes(env, info[0], "target");
  uint64_t offset = toIndexOr(env, info[1], "byteOffset", 0);
  if (offset > state->byteLength) checkRange(env, *state, offset, 0);
  uint64_t length = checkRange(env, *state, offset, target.length);
  if (length == 0) return env.Undefined();
  if (readsMapped(*state->storage, length)) {
    std::memcpy(target.data, state->storage->mapped() + offset, length);
    return env.Undefined();
  }
  std::shared_ptr<StagingLease> staging = StagingLease::acquire(env, state->storage->context(), length);
  recordCopy(env, staging->batch(), state->storage->buffer(), offset, staging->buffer(), 0, length);
  staging->batch().submitAndWait(env);
  std::memcpy(target.data, staging->mapped(), length);
  return env.Undefined();
}

// readAsync(byteLength = rest, byteOffset = 0) -> Promise<ArrayBuffer>
Napi::Value Buffer::readAsync(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  Napi::Env env = info.Env();
  std::shared_ptr<BufferState> state = live(env);
  uint64_t offset = toIndexOr(env, info[1], "byteOffset", 0);
  if (offset > state->byteLength) checkRange(env, *state, offset, 0);
  uint64_t length = checkRange(env, *state, offset, toIndexOr(env, info[0], "byteLength", state->byteLength - offset));
  if (length == 0 || readsMapped(*state->storage, length)) {
    Napi::ArrayBuffer out = Napi::ArrayBuffer::New(env, length);
    if (length > 0) std::memcpy(out.Data(), state->storage->mapped() + offset, length);
    Napi::Promise::Deferred done = Napi::Promise::Deferred::New(env);
    done.Resolve(out);
    return done.Promise();
  }
  std::shared_ptr<StagingLease> staging = StagingLease::acquire(env, state->storage->context(), length);
  recordCopy(env, staging->batch(), state->storage->buffer(), offset, staging->buffer(), 0, length);
  staging->batch().submit(env);
  // The lease stays held (the staging memory not reused) until the fence waiter lets go of it,
  // after this completion has copied the bytes out.
  auto keepAlive = std::make_shared<std::pair<std::shared_ptr<StagingLease>, std::shared_ptr<BufferState>>>(staging, state);
  return waitAsync(env, StagingLease::batchOf(staging), keepAlive, [staging, length](Napi::Env env) -> Napi::Value {
    Napi::ArrayBuffer out = Napi::ArrayBuffer::New(env, length);
    std::memcpy(out.Data(), staging->mapped(), length);
    return out;
  });
}

Napi::Value Buffer::fillZero(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  Napi::Env env = info.Env();
  std::shared_ptr<BufferState> state = live(env);
  if (uint8_t* mapped = state->storage->mapped()) {
    std::memset(mapped, 0, state->storage->size());
    return env.Undefined();
  }
  CommandBatch batch(env, state->storage->context());
  batch.begin(env);
  memoryBarrier(batch.commandBuffer(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  fn::vkCmdFillBuffer(batch.commandBuffer(), state->storage->buffer(), 0, VK_WHOLE_SIZE, 0);
  batch.end(env);
  batch.submitAndWait(env);
  return env.Undefined();
}

// Marks the buffer destroyed and drops this wrapper's reference; sequences
// that recorded it keep the memory until they are destroyed.
Napi::Value Buffer::destroy(const Napi::CallbackInfo& info) {
  requireThis(info, kBufferTag);
  if (state_) {
    state_->destroyed = true;
    state_.reset();
  }
  return info.Env().Undefined();
}
