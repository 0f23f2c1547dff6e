// Staging memory reused across transfers. Reads and writes of memory the host cannot use directly
// (device-local memory, and reads of uncached BAR memory) copy through host-visible staging memory
// on the queue. A fresh buffer, memory allocation and command buffer for each transfer cost an H200
// run of 1024 chains about 150 ms of 1.1 s (thousands of small reads between sampling blocks), so
// each context keeps a few slots, each a staging buffer with the command batch that copies through
// it, and hands them out by lease.
//
// A slot is leased to one transfer at a time: an asynchronous read holds its lease until its fence
// has signalled and the promise settled, so its memory is never reused while the GPU may still
// write it. When every slot is leased, or a transfer is larger than a slot may grow, the lease holds
// a one-off slot of its own, freed with it (what every transfer did before).
//
// Main thread only, like the context's command pool.
#pragma once
#include <napi.h>

#include <memory>
#include <vector>

#include "buffer.hpp"
#include "commands.hpp"
#include "context.hpp"

// A staging buffer and the command batch that copies through it.
struct StagingSlot {
  std::unique_ptr<DeviceBuffer> memory;  // null after a failed growth; capacity 0 then
  std::unique_ptr<CommandBatch> batch;
  bool leased = false;

  uint64_t capacity() const { return memory ? memory->size() : 0; }
};

// The context's slots (Context::staging). Destroyed by ~Context, after the device is idle and
// before the command pool and device go.
struct StagingPool {
  std::vector<std::unique_ptr<StagingSlot>> slots;
};

class StagingLease {
 public:
  // Staging memory of at least `size` bytes, and a batch to record the copy into (re-recorded by
  // each user: vkBeginCommandBuffer resets it). Throws a JS error (typed, as DeviceBuffer's and
  // CommandBatch's constructors throw) when no memory can be had.
  static std::shared_ptr<StagingLease> acquire(Napi::Env env, const std::shared_ptr<Context>& context, uint64_t size);

  // Gives a pooled slot back; waits first if its copy is still running (only when the lease is
  // dropped without waiting, e.g. a throw between submit and waitAsync), so the next user never
  // records into a pending command buffer.
  ~StagingLease();
  StagingLease(const StagingLease&) = delete;
  StagingLease& operator=(const StagingLease&) = delete;

  uint8_t* mapped() const { return slot_->memory->mapped(); }
  VkBuffer buffer() const { return slot_->memory->buffer(); }
  CommandBatch& batch() const { return *slot_->batch; }
  // The batch as waitAsync takes it: a pointer that shares ownership of `lease`, so the slot
  // stays leased for as long as the fence waiter holds the batch.
  static std::shared_ptr<CommandBatch> batchOf(const std::shared_ptr<StagingLease>& lease);

 private:
  StagingLease(std::shared_ptr<Context> context, StagingSlot* slot, std::unique_ptr<StagingSlot> own);
  std::shared_ptr<Context> context_;  // owning: the pool (inside the context) outlives the lease
  StagingSlot* slot_;                 // a pooled slot, or own_.get()
  std::unique_ptr<StagingSlot> own_;  // the one-off slot, when no pooled one was free
};
