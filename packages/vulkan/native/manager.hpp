// The manager (Kompute's noun): one device context, the factory that buffers,
// algorithms and sequences are created against.
#pragma once
#include <napi.h>

#include <memory>

#include "context.hpp"

class Manager : public Napi::ObjectWrap<Manager> {
 public:
  static Napi::Function define(Napi::Env env);
  // JS: new Manager(deviceIndex | undefined, { forceStaging?, robustBufferAccess?, pipelineCachePath? })
  explicit Manager(const Napi::CallbackInfo& info);

  // The context; throws when the manager was destroyed.
  std::shared_ptr<Context> live(Napi::Env env) const;

  // Unwraps a JS Manager argument (type-checked) and returns its live context.
  static std::shared_ptr<Context> contextOf(Napi::Env env, const Napi::Value& value);

 private:
  Napi::Value deviceIndex(const Napi::CallbackInfo& info);
  Napi::Value deviceName(const Napi::CallbackInfo& info);
  Napi::Value forceStaging(const Napi::CallbackInfo& info);
  Napi::Value destroyed(const Napi::CallbackInfo& info);
  // Whether a Vulkan call reported VK_ERROR_DEVICE_LOST (the manager then refuses further work).
  Napi::Value lost(const Napi::CallbackInfo& info);
  Napi::Value savePipelineCache(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);

  std::shared_ptr<Context> context_;
};
