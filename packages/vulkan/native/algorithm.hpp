// Algorithms (Kompute's noun): a compute pipeline built from SPIR-V, with a
// descriptor-set layout of N storage buffers (set 0, bindings 0..N-1),
// optional specialization constants (constant_id 0..k, 32-bit each) and an
// optional push-constant range. The workgroup size comes from the shader.
#pragma once
#include <napi.h>

#include <array>
#include <memory>
#include <vector>

#include "context.hpp"

struct AlgorithmState {
  std::shared_ptr<Context> context;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t bufferCount = 0;
  uint32_t pushConstantSize = 0;
  std::array<uint32_t, 3> localSize{0, 0, 0};
  bool destroyed = false;
  // A deferred pipeline (built by build() on a worker thread): the shader and its constants until then.
  std::vector<uint32_t> pendingCode;
  std::vector<uint32_t> pendingSpec;
  bool building = false;

  explicit AlgorithmState(std::shared_ptr<Context> context) : context(std::move(context)) {}
  AlgorithmState(const AlgorithmState&) = delete;
  AlgorithmState& operator=(const AlgorithmState&) = delete;
  ~AlgorithmState();
};

class Algorithm : public Napi::ObjectWrap<Algorithm> {
 public:
  static Napi::Function define(Napi::Env env);
  // JS: new Algorithm(manager, spirv: Uint32Array, bufferCount, specConstants?: Uint32Array, pushConstantSize?, deferred?)
  // With deferred, the pipeline is not built until build() (a Promise, built off the main thread).
  explicit Algorithm(const Napi::CallbackInfo& info);

  // The live state; throws when destroyed.
  std::shared_ptr<AlgorithmState> live(Napi::Env env) const;

 private:
  Napi::Value bufferCount(const Napi::CallbackInfo& info);
  Napi::Value pushConstantSize(const Napi::CallbackInfo& info);
  Napi::Value localSize(const Napi::CallbackInfo& info);
  Napi::Value statistics(const Napi::CallbackInfo& info);
  Napi::Value destroyed(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);
  Napi::Value build(const Napi::CallbackInfo& info);
  Napi::Value built(const Napi::CallbackInfo& info);

  std::shared_ptr<AlgorithmState> state_;
};
