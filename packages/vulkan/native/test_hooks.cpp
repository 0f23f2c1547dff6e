#include "test_hooks.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "errors.hpp"

namespace {

// One armed fault; the fence-wait thread reads it too, hence the mutex.
struct ArmedFault {
  std::string call;
  VkResult result = VK_SUCCESS;
  uint64_t skip = 0;
};

std::mutex mutex;
ArmedFault armed;
std::once_flag fromEnvironment;
std::atomic<int64_t> liveContexts{0};
std::atomic<int64_t> liveBuffers{0};
std::atomic<uint64_t> stagingBuffersAllocated{0};
std::atomic<uint64_t> commandBuffersAllocated{0};

// The results a test may inject: the failures a driver reports at run time.
const VkResult kInjectable[] = {VK_ERROR_DEVICE_LOST, VK_ERROR_OUT_OF_DEVICE_MEMORY, VK_ERROR_OUT_OF_HOST_MEMORY,
                                VK_ERROR_INITIALIZATION_FAILED, VK_ERROR_UNKNOWN};

VkResult injectableResult(const std::string& name) {
  for (VkResult candidate : kInjectable) {
    if (name == vkResultName(candidate)) return candidate;
  }
  return VK_SUCCESS;
}

// PPL_VULKAN_TEST_FAULT=<call>:<result>[:<skip>]; a malformed value arms nothing.
void armFromEnvironment() {
  const char* text = std::getenv("PPL_VULKAN_TEST_FAULT");
  if (text == nullptr) return;
  std::vector<std::string> parts(1);
  for (const char* p = text; *p; p++) {
    if (*p == ':') parts.emplace_back();
    else parts.back() += *p;
  }
  if (parts.size() < 2 || parts.size() > 3) return;
  VkResult result = injectableResult(parts[1]);
  if (result == VK_SUCCESS) return;
  armed = ArmedFault{parts[0], result, parts.size() == 3 ? std::strtoull(parts[2].c_str(), nullptr, 10) : 0};
}

Napi::Value failCall(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString() || !info[1].IsString()) throwTypeError(env, "failCall(call, result, skip?) takes two strings");
  std::string resultName = info[1].As<Napi::String>().Utf8Value();
  VkResult result = injectableResult(resultName);
  if (result == VK_SUCCESS) throwRangeError(env, "failCall: cannot inject '" + resultName + "'");
  uint64_t skip = 0;
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    if (!info[2].IsNumber() || info[2].As<Napi::Number>().DoubleValue() < 0) throwRangeError(env, "failCall: skip must be a count");
    skip = static_cast<uint64_t>(info[2].As<Napi::Number>().DoubleValue());
  }
  std::lock_guard<std::mutex> lock(mutex);
  armed = ArmedFault{info[0].As<Napi::String>().Utf8Value(), result, skip};
  return env.Undefined();
}

Napi::Value live(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object counts = Napi::Object::New(env);
  counts.Set("contexts", Napi::Number::New(env, static_cast<double>(liveContexts.load())));
  counts.Set("buffers", Napi::Number::New(env, static_cast<double>(liveBuffers.load())));
  return counts;
}

Napi::Value allocations(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object counts = Napi::Object::New(env);
  counts.Set("stagingBuffers", Napi::Number::New(env, static_cast<double>(stagingBuffersAllocated.load())));
  counts.Set("commandBuffers", Napi::Number::New(env, static_cast<double>(commandBuffersAllocated.load())));
  return counts;
}

Napi::Value clear(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(mutex);
  armed = ArmedFault{};
  return info.Env().Undefined();
}

}  // namespace

VkResult injectedFault(const char* call) {
  std::lock_guard<std::mutex> lock(mutex);
  std::call_once(fromEnvironment, armFromEnvironment);
  if (armed.result == VK_SUCCESS || armed.call != call) return VK_SUCCESS;
  if (armed.skip > 0) {
    armed.skip--;
    return VK_SUCCESS;
  }
  VkResult result = armed.result;
  armed = ArmedFault{};  // once
  return result;
}

void countLive(LiveKind kind, int delta) {
  (kind == LiveKind::Context ? liveContexts : liveBuffers) += delta;
}

void countAllocation(AllocationKind kind) {
  (kind == AllocationKind::StagingBuffer ? stagingBuffersAllocated : commandBuffersAllocated)++;
}

uint64_t testHeapLimit() {
  const char* text = std::getenv("PPL_VULKAN_TEST_HEAP_LIMIT");
  if (text == nullptr || *text == '\0') return 0;
  return std::strtoull(text, nullptr, 10);
}

Napi::Object testHooksObject(Napi::Env env) {
  Napi::Object hooks = Napi::Object::New(env);
  hooks.Set("failCall", Napi::Function::New(env, failCall, "failCall"));
  hooks.Set("clear", Napi::Function::New(env, clear, "clear"));
  hooks.Set("live", Napi::Function::New(env, live, "live"));
  hooks.Set("allocations", Napi::Function::New(env, allocations, "allocations"));
  return hooks;
}
