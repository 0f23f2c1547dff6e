#include "staging.hpp"

// At most this many slots per context: enough for the few reads in flight at once between
// sampling blocks; more at once take one-off slots.
constexpr size_t kPooledSlots = 4;
// A slot is allocated at least this large, and grows to the next power of two a transfer needs up
// to kMaxSlotBytes. Larger transfers take one-off slots: their copy costs far more than the
// allocation, and the pool never keeps more than kPooledSlots × kMaxSlotBytes of host memory.
constexpr uint64_t kMinSlotBytes = 64 << 10;
constexpr uint64_t kMaxSlotBytes = 4 << 20;

static uint64_t slotBytes(uint64_t size) {
  uint64_t bytes = kMinSlotBytes;
  while (bytes < size) bytes *= 2;
  return bytes;
}

// Pooled slots point at the context without owning it: the context owns the pool, and an owning
// pointer would be a cycle that never frees the device.
static std::shared_ptr<Context> unowned(const std::shared_ptr<Context>& context) {
  return std::shared_ptr<Context>(std::shared_ptr<Context>(), context.get());
}

std::shared_ptr<StagingLease> StagingLease::acquire(Napi::Env env, const std::shared_ptr<Context>& context,
                                                    uint64_t size) {
  if (size <= kMaxSlotBytes) {
    if (!context->staging) context->staging = std::make_unique<StagingPool>();
    std::vector<std::unique_ptr<StagingSlot>>& slots = context->staging->slots;
    auto firstFree = [&slots](uint64_t capacity) -> StagingSlot* {
      for (auto& slot : slots) {
        if (!slot->leased && slot->capacity() >= capacity) return slot.get();
      }
      return nullptr;
    };
    // A free slot that holds `size`; else a free slot to grow; else a new slot, up to kPooledSlots.
    StagingSlot* pick = firstFree(size);
    if (!pick) pick = firstFree(0);
    if (!pick && slots.size() < kPooledSlots) {
      auto slot = std::make_unique<StagingSlot>();
      slot->batch = std::make_unique<CommandBatch>(env, unowned(context));
      slots.push_back(std::move(slot));
      pick = slots.back().get();
    }
    if (pick) {
      if (pick->capacity() < size) {
        pick->memory.reset();  // freed first: on a nearly full heap the old memory makes room for the new
        pick->memory = std::make_unique<DeviceBuffer>(env, unowned(context), slotBytes(size), MemoryKind::Staging);
      }
      return std::shared_ptr<StagingLease>(new StagingLease(context, pick, nullptr));
    }
  }
  auto own = std::make_unique<StagingSlot>();
  own->memory = std::make_unique<DeviceBuffer>(env, context, size, MemoryKind::Staging);
  own->batch = std::make_unique<CommandBatch>(env, context);
  StagingSlot* slot = own.get();
  return std::shared_ptr<StagingLease>(new StagingLease(context, slot, std::move(own)));
}

StagingLease::StagingLease(std::shared_ptr<Context> context, StagingSlot* slot, std::unique_ptr<StagingSlot> own)
    : context_(std::move(context)), slot_(slot), own_(std::move(own)) {
  slot_->leased = true;
}

StagingLease::~StagingLease() {
  CommandBatch& batch = *slot_->batch;
  if (batch.inFlight()) {
    batch.waitBlocking();
    batch.finished();
  }
  slot_->leased = false;
}

std::shared_ptr<CommandBatch> StagingLease::batchOf(const std::shared_ptr<StagingLease>& lease) {
  return std::shared_ptr<CommandBatch>(lease, lease->slot_->batch.get());
}
