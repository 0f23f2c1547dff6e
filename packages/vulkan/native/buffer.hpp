// Buffers ("tensors" in Kompute's words): a VkBuffer bound to its own
// VkDeviceMemory. Where the device has memory that is both device-local and
// host-visible (unified memory, resizable BAR) the buffer is mapped and read
// and written directly; otherwise (or with forceStaging) transfers go through
// host-visible staging memory (staging.hpp, reused across transfers) and a
// copy on the queue.
#pragma once
#include <napi.h>

#include <memory>

#include "context.hpp"

enum class MemoryKind {
  Direct,   // device-local and host-visible, persistently mapped
  Device,   // device-local only: data moves through staging copies
  Staging,  // host-visible, for staging transfers
  Readback, // host memory like Staging, for results copied in and read in place (not counted as staging)
};

// RAII VkBuffer + VkDeviceMemory (+ mapping).
class DeviceBuffer {
 public:
  // `kind` Direct falls back to Device when no such memory type exists or
  // its heap is full. Throws a JS error on failure.
  DeviceBuffer(Napi::Env env, std::shared_ptr<Context> context, uint64_t size, MemoryKind kind);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  VkBuffer buffer() const { return buffer_; }
  uint64_t size() const { return size_; }
  uint8_t* mapped() const { return static_cast<uint8_t*>(mapped_); }
  // Whether the host reads the mapping through its caches. A resizable-BAR mapping of device
  // memory is not cached: the host reads it over the bus a word at a time.
  bool hostCached() const { return hostCached_; }
  const std::shared_ptr<Context>& context() const { return context_; }

 private:
  void create(Napi::Env env, MemoryKind kind);
  void release();
  VkResult allocate(int memoryType, uint64_t size);
  std::shared_ptr<Context> context_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  bool hostCached_ = false;
  uint64_t size_ = 0;
  // Where memory_ was counted in the context's heapAllocated, to give it back.
  uint32_t heap_ = 0;
  uint64_t allocated_ = 0;
};

// What a JS Buffer and the sequences that recorded it share. destroy() only
// marks it: the memory is freed when the last recording lets go of it, so a
// command buffer never points at freed memory.
struct BufferState {
  std::unique_ptr<DeviceBuffer> storage;
  uint64_t byteLength = 0;  // as requested; the VkBuffer is rounded up to 4 bytes
  bool destroyed = false;
};

class Buffer : public Napi::ObjectWrap<Buffer> {
 public:
  static Napi::Function define(Napi::Env env);
  // JS: new Buffer(manager, byteLength)
  explicit Buffer(const Napi::CallbackInfo& info);

  // The live state; throws when destroyed.
  std::shared_ptr<BufferState> live(Napi::Env env) const;

 private:
  Napi::Value byteLength(const Napi::CallbackInfo& info);
  Napi::Value hostVisible(const Napi::CallbackInfo& info);
  Napi::Value destroyed(const Napi::CallbackInfo& info);
  Napi::Value write(const Napi::CallbackInfo& info);
  Napi::Value writeAsync(const Napi::CallbackInfo& info);
  Napi::Value read(const Napi::CallbackInfo& info);
  Napi::Value readAsync(const Napi::CallbackInfo& info);
  Napi::Value readInto(const Napi::CallbackInfo& info);
  Napi::Value fillZero(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);

  std::shared_ptr<BufferState> state_;
};
