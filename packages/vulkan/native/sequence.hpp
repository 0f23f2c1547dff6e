// Sequences (Kompute's noun): one command buffer recording many dispatches
// and buffer copies, submitted as a whole, any number of times.
//
// Barriers are automatic: every command waits for all earlier commands of the
// sequence (a global compute+transfer memory barrier between consecutive
// commands), the first waits for all earlier GPU work, and the end makes every
// write visible to the host. Dependent kernels are the common case here, and
// a global barrier costs about as much as a per-buffer one.
#pragma once
#include <napi.h>

#include <memory>
#include <vector>

#include "algorithm.hpp"
#include "buffer.hpp"
#include "commands.hpp"

struct SequenceState {
  std::shared_ptr<Context> context;
  std::shared_ptr<CommandBatch> batch;
  std::vector<VkDescriptorPool> pools;
  uint32_t setsLeft = 0;         // in pools.back()
  uint32_t descriptorsLeft = 0;  // in pools.back()
  // Everything the command buffer points at stays alive as long as it does.
  std::vector<std::shared_ptr<BufferState>> buffers;
  std::vector<std::shared_ptr<AlgorithmState>> algorithms;
  uint32_t commandCount = 0;
  bool recording = false;  // vkBeginCommandBuffer called
  bool ended = false;      // vkEndCommandBuffer called: no more commands

  explicit SequenceState(std::shared_ptr<Context> context) : context(std::move(context)) {}
  SequenceState(const SequenceState&) = delete;
  SequenceState& operator=(const SequenceState&) = delete;
  ~SequenceState();
};

class Sequence : public Napi::ObjectWrap<Sequence> {
 public:
  static Napi::Function define(Napi::Env env);
  // JS: new Sequence(manager)
  explicit Sequence(const Napi::CallbackInfo& info);

 private:
  std::shared_ptr<SequenceState> live(Napi::Env env) const;
  // Begins recording or inserts the barrier after the previous command.
  void beforeCommand(Napi::Env env, SequenceState& state);
  VkDescriptorSet allocateSet(Napi::Env env, SequenceState& state, const AlgorithmState& algorithm);
  // Ends recording on first submit and checks nothing recorded was destroyed.
  void prepareSubmit(Napi::Env env, SequenceState& state);

  Napi::Value dispatch(const Napi::CallbackInfo& info);
  Napi::Value copy(const Napi::CallbackInfo& info);
  Napi::Value submit(const Napi::CallbackInfo& info);
  Napi::Value submitSync(const Napi::CallbackInfo& info);
  Napi::Value commandCount(const Napi::CallbackInfo& info);
  Napi::Value running(const Napi::CallbackInfo& info);
  Napi::Value destroyed(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);

  std::shared_ptr<SequenceState> state_;
};
