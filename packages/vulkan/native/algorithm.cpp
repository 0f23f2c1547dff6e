#include "algorithm.hpp"

#include <algorithm>
#include <vector>

#include "addon.hpp"
#include "args.hpp"
#include "errors.hpp"
#include "manager.hpp"
#include "spirv.hpp"

AlgorithmState::~AlgorithmState() {
  VkDevice device = context->device;
  if (pipeline != VK_NULL_HANDLE) fn::vkDestroyPipeline(device, pipeline, nullptr);
  if (pipelineLayout != VK_NULL_HANDLE) fn::vkDestroyPipelineLayout(device, pipelineLayout, nullptr);
  if (setLayout != VK_NULL_HANDLE) fn::vkDestroyDescriptorSetLayout(device, setLayout, nullptr);
}

Napi::Function Algorithm::define(Napi::Env env) {
  return DefineClass(env, "Algorithm",
                     {
                         InstanceAccessor<&Algorithm::bufferCount>("bufferCount"),
                         InstanceAccessor<&Algorithm::pushConstantSize>("pushConstantSize"),
                         InstanceAccessor<&Algorithm::localSize>("localSize"),
                         InstanceAccessor<&Algorithm::destroyed>("destroyed"),
                         InstanceMethod<&Algorithm::statistics>("statistics"),
                         InstanceMethod<&Algorithm::destroy>("destroy"),
                         InstanceMethod<&Algorithm::build>("build"),
                         InstanceAccessor<&Algorithm::built>("built"),
                     });
}

static std::vector<uint32_t> uint32Words(Napi::Env env, const Napi::Value& value, const char* what) {
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
    throwTypeError(env, std::string(what) + " must be a Uint32Array");
  }
  Napi::Uint32Array array = value.As<Napi::Uint32Array>();
  return std::vector<uint32_t>(array.Data(), array.Data() + array.ElementLength());
}

// The shader module and the pipeline; touches no JavaScript, so a worker thread may run it. The
// pipeline cache is internally synchronized (created without the externally-synchronized flag).
static VkResult createPipeline(AlgorithmState& state, const std::vector<uint32_t>& code, const std::vector<uint32_t>& specConstants) {
  VkDevice device = state.context->device;
  VkShaderModuleCreateInfo moduleInfo{};
  moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  moduleInfo.codeSize = code.size() * sizeof(uint32_t);
  moduleInfo.pCode = code.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VkResult made = fn::vkCreateShaderModule(device, &moduleInfo, nullptr, &module);
  if (made != VK_SUCCESS) return made;

  std::vector<VkSpecializationMapEntry> entries(specConstants.size());
  for (uint32_t k = 0; k < specConstants.size(); k++) {
    entries[k] = VkSpecializationMapEntry{k, k * 4u, 4};
  }
  VkSpecializationInfo specialization{};
  specialization.mapEntryCount = static_cast<uint32_t>(entries.size());
  specialization.pMapEntries = entries.data();
  specialization.dataSize = specConstants.size() * sizeof(uint32_t);
  specialization.pData = specConstants.data();

  VkComputePipelineCreateInfo pipelineInfo{};
  pipelineInfo.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipelineInfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = module;
  pipelineInfo.stage.pName = "main";
  pipelineInfo.stage.pSpecializationInfo = specConstants.empty() ? nullptr : &specialization;
  pipelineInfo.layout = state.pipelineLayout;
  if (state.context->getPipelineExecutableStatistics) pipelineInfo.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkResult result = fn::vkCreateComputePipelines(device, state.context->pipelineCache, 1, &pipelineInfo, nullptr, &pipeline);
  // The pipeline keeps what it needs; the module can go either way.
  fn::vkDestroyShaderModule(device, module, nullptr);
  if (result == VK_SUCCESS) state.pipeline = pipeline;
  return result;
}

// build(): the deferred pipeline, created on a worker thread of the event loop's pool; the
// promise settles on the main thread (rejected with the Vulkan error when the driver refuses).
class PipelineBuild : public Napi::AsyncWorker {
 public:
  PipelineBuild(Napi::Env env, std::shared_ptr<AlgorithmState> state)
      : Napi::AsyncWorker(env), state_(std::move(state)), deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise promise() { return deferred_.Promise(); }
  void Execute() override { result_ = createPipeline(*state_, state_->pendingCode, state_->pendingSpec); }
  void OnOK() override {
    state_->building = false;
    state_->pendingCode.clear();
    state_->pendingSpec.clear();
    if (result_ == VK_SUCCESS) deferred_.Resolve(Env().Undefined());
    else deferred_.Reject(makeVulkanError(Env(), VulkanFailure{"vkCreateComputePipelines", result_, ""}).Value());
  }

 private:
  std::shared_ptr<AlgorithmState> state_;
  Napi::Promise::Deferred deferred_;
  VkResult result_ = VK_SUCCESS;
};

Napi::Value Algorithm::build(const Napi::CallbackInfo& info) {
  requireThis(info, kAlgorithmTag);
  Napi::Env env = info.Env();
  std::shared_ptr<AlgorithmState> state = live(env);
  if (state->building || state->pipeline != VK_NULL_HANDLE) throwError(env, "build(): the pipeline is built or being built already");
  state->building = true;
  auto* worker = new PipelineBuild(env, state);
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

Napi::Value Algorithm::built(const Napi::CallbackInfo& info) {
  requireThis(info, kAlgorithmTag);
  return Napi::Boolean::New(info.Env(), state_ && !state_->building && state_->pipeline != VK_NULL_HANDLE);
}

Algorithm::Algorithm(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Algorithm>(info) {
  Napi::Env env = info.Env();
  info.This().As<Napi::Object>().TypeTag(&kAlgorithmTag);
  std::shared_ptr<Context> context = Manager::contextOf(env, info[0]);
  std::vector<uint32_t> code = uint32Words(env, info[1], "spirv");
  uint64_t bufferCount = toIndex(env, info[2], "bufferCount");
  std::vector<uint32_t> specConstants;
  if (info.Length() > 3 && !info[3].IsUndefined()) specConstants = uint32Words(env, info[3], "specConstants");
  uint64_t pushConstantSize = toIndexOr(env, info[4], "pushConstantSize", 0);

  const VkPhysicalDeviceLimits& limits = context->limits();
  uint64_t maxBuffers = std::min(limits.maxPerStageDescriptorStorageBuffers, limits.maxDescriptorSetStorageBuffers);
  if (bufferCount > maxBuffers) {
    throwRangeError(env, "bufferCount " + std::to_string(bufferCount) + " exceeds the device limit of " +
                             std::to_string(maxBuffers) + " storage buffers per shader");
  }
  if (pushConstantSize % 4 != 0 || pushConstantSize > limits.maxPushConstantsSize) {
    throwRangeError(env, "pushConstantSize must be a multiple of 4 and at most maxPushConstantsSize (" +
                             std::to_string(limits.maxPushConstantsSize) + "), got " + std::to_string(pushConstantSize));
  }

  SpirvSummary summary = inspectSpirv(code);
  if (!summary.error.empty()) throwError(env, "invalid SPIR-V: " + summary.error);
  for (const SpirvBinding& binding : summary.bindings) {
    std::string where = "set " + std::to_string(binding.set) + ", binding " + std::to_string(binding.binding);
    if (binding.set != 0) throwError(env, "invalid SPIR-V for this algorithm: " + where + ": only set 0 is bound");
    if (binding.binding >= bufferCount) {
      throwError(env, "invalid SPIR-V for this algorithm: the shader uses " + where + " but bufferCount is " +
                          std::to_string(bufferCount));
    }
    if (!binding.storageBuffer || binding.isArray) {
      throwError(env, "invalid SPIR-V for this algorithm: " + where + " is not a single storage buffer");
    }
  }
  if (summary.hasPushConstants && pushConstantSize == 0) {
    throwError(env, "the shader declares push constants but pushConstantSize is 0");
  }

  auto state = std::make_shared<AlgorithmState>(context);
  state->bufferCount = static_cast<uint32_t>(bufferCount);
  state->pushConstantSize = static_cast<uint32_t>(pushConstantSize);
  state->localSize = summary.localSize;
  VkDevice device = context->device;

  std::vector<VkDescriptorSetLayoutBinding> bindings(bufferCount);
  for (uint32_t b = 0; b < bufferCount; b++) {
    bindings[b] = VkDescriptorSetLayoutBinding{};
    bindings[b].binding = b;
    bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[b].descriptorCount = 1;
    bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setLayoutInfo{};
  setLayoutInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setLayoutInfo.bindingCount = static_cast<uint32_t>(bufferCount);
  setLayoutInfo.pBindings = bindings.data();
  check(env, fn::vkCreateDescriptorSetLayout(device, &setLayoutInfo, nullptr, &state->setLayout),
        "vkCreateDescriptorSetLayout");

  VkPushConstantRange pushRange{VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(pushConstantSize)};
  VkPipelineLayoutCreateInfo layoutInfo{};
  layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &state->setLayout;
  layoutInfo.pushConstantRangeCount = pushConstantSize > 0 ? 1 : 0;
  layoutInfo.pPushConstantRanges = &pushRange;
  check(env, fn::vkCreatePipelineLayout(device, &layoutInfo, nullptr, &state->pipelineLayout),
        "vkCreatePipelineLayout");

  bool deferred = info.Length() > 5 && info[5].ToBoolean().Value();
  if (deferred) {
    state->pendingCode = std::move(code);
    state->pendingSpec = std::move(specConstants);
  } else {
    VkResult result = createPipeline(*state, code, specConstants);
    if (result != VK_SUCCESS) throwVulkanError(env, "vkCreateComputePipelines", result);
  }
  state_ = state;
}

std::shared_ptr<AlgorithmState> Algorithm::live(Napi::Env env) const {
  if (!state_ || state_->destroyed) throwError(env, "Algorithm was destroyed");
  return state_;
}

Napi::Value Algorithm::bufferCount(const Napi::CallbackInfo& info) {
  requireThis(info, kAlgorithmTag);
  return Napi::Number::New(info.Env(), live(info.Env())->bufferCount);
}

Napi::Value Algorithm::pushConstantSize(const Napi::CallbackInfo& info) {
  requireThis(info, kAlgorithmTag);
  return Napi::Number::New(info.Env(), live(info.Env())->pushConstantSize);
}

Napi::Value Algorithm::localSize(const Napi::CallbackInfo& info) {
  requireThis(info, kAlgorithmTag);
  Napi::Env env = info.Env();
  std::shared_ptr<AlgorithmState> state = live(env);
  Napi::Array out = Napi::Array::New(env, 3);
  for (uint32_t i = 0; i < 3; i++) out.Set(i, state->localSize[i]);
  return out;
}

// The driver's statistics of each executable of the pipeline (for a compute
// pipeline, usually one): [{name, description, statistics: [{name,
// description, value}]}]; null when the manager was not created with
// pipelineStatistics or the device does not report them.
Napi::Value Algorithm::statistics(const Napi::CallbackInfo& info) {
  requireThis(info, kAlgorithmTag);
  Napi::Env env = info.Env();
  std::shared_ptr<AlgorithmState> state = live(env);
  const Context& context = *state->context;
  if (state->building || state->pipeline == VK_NULL_HANDLE) return env.Null();
  if (!context.getPipelineExecutableProperties || !context.getPipelineExecutableStatistics) return env.Null();
  VkPipelineInfoKHR pipeline{};
  pipeline.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  pipeline.pipeline = state->pipeline;
  uint32_t count = 0;
  check(env, context.getPipelineExecutableProperties(context.device, &pipeline, &count, nullptr),
        "vkGetPipelineExecutablePropertiesKHR");
  std::vector<VkPipelineExecutablePropertiesKHR> executables(count);
  for (auto& e : executables) e.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  check(env, context.getPipelineExecutableProperties(context.device, &pipeline, &count, executables.data()),
        "vkGetPipelineExecutablePropertiesKHR");
  Napi::Array out = Napi::Array::New(env, count);
  for (uint32_t i = 0; i < count; i++) {
    VkPipelineExecutableInfoKHR which{};
    which.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    which.pipeline = state->pipeline;
    which.executableIndex = i;
    uint32_t statCount = 0;
    check(env, context.getPipelineExecutableStatistics(context.device, &which, &statCount, nullptr),
          "vkGetPipelineExecutableStatisticsKHR");
    std::vector<VkPipelineExecutableStatisticKHR> stats(statCount);
    for (auto& st : stats) st.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    check(env, context.getPipelineExecutableStatistics(context.device, &which, &statCount, stats.data()),
          "vkGetPipelineExecutableStatisticsKHR");
    Napi::Array jsStats = Napi::Array::New(env, statCount);
    for (uint32_t k = 0; k < statCount; k++) {
      const VkPipelineExecutableStatisticKHR& st = stats[k];
      Napi::Object o = Napi::Object::New(env);
      o.Set("name", st.name);
      o.Set("description", st.description);
      double value = 0;
      switch (st.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: value = st.value.b32 ? 1 : 0; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: value = static_cast<double>(st.value.i64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: value = static_cast<double>(st.value.u64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: value = st.value.f64; break;
        default: break;
      }
      o.Set("value", value);
      jsStats.Set(k, o);
    }
    Napi::Object e = Napi::Object::New(env);
    e.Set("name", executables[i].name);
    e.Set("description", executables[i].description);
    e.Set("subgroupSize", executables[i].subgroupSize);
    e.Set("statistics", jsStats);
    out.Set(i, e);
  }
  return out;
}

Napi::Value Algorithm::destroyed(const Napi::CallbackInfo& info) {
  requireThis(info, kAlgorithmTag);
  return Napi::Boolean::New(info.Env(), !state_ || state_->destroyed);
}

// Marks destroyed; the pipeline lives on while a recorded sequence uses it.
Napi::Value Algorithm::destroy(const Napi::CallbackInfo& info) {
  requireThis(info, kAlgorithmTag);
  if (state_) {
    state_->destroyed = true;
    state_.reset();
  }
  return info.Env().Undefined();
}
