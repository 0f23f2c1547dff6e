#include "manager.hpp"

#include "addon.hpp"
#include "args.hpp"
#include "errors.hpp"

Napi::Function Manager::define(Napi::Env env) {
  return DefineClass(env, "Manager",
                     {
                         InstanceAccessor<&Manager::deviceIndex>("deviceIndex"),
                         InstanceAccessor<&Manager::deviceName>("deviceName"),
                         InstanceAccessor<&Manager::forceStaging>("forceStaging"),
                         InstanceAccessor<&Manager::destroyed>("destroyed"),
                         InstanceAccessor<&Manager::lost>("lost"),
                         InstanceMethod<&Manager::savePipelineCache>("savePipelineCache"),
                         InstanceMethod<&Manager::destroy>("destroy"),
                     });
}

static bool optionalBool(Napi::Env env, const Napi::Object& options, const char* key, bool fallback) {
  Napi::Value value = options.Get(key);
  if (value.IsUndefined()) return fallback;
  if (!value.IsBoolean()) throwTypeError(env, std::string("option ") + key + " must be a boolean");
  return value.As<Napi::Boolean>().Value();
}

Manager::Manager(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Manager>(info) {
  Napi::Env env = info.Env();
  info.This().As<Napi::Object>().TypeTag(&kManagerTag);
  ContextOptions options;
  if (info.Length() > 1 && !info[1].IsUndefined()) {
    if (!info[1].IsObject()) throwTypeError(env, "Manager options must be an object");
    Napi::Object object = info[1].As<Napi::Object>();
    options.forceStaging = optionalBool(env, object, "forceStaging", false);
    options.robustBufferAccess = optionalBool(env, object, "robustBufferAccess", true);
    options.pipelineStatistics = optionalBool(env, object, "pipelineStatistics", false);
    Napi::Value path = object.Get("pipelineCachePath");
    if (!path.IsUndefined()) {
      if (!path.IsString()) throwTypeError(env, "option pipelineCachePath must be a string");
      options.pipelineCachePath = path.As<Napi::String>().Utf8Value();
    }
  }
  uint32_t index = 0;
  if (info.Length() == 0 || info[0].IsUndefined()) {
    index = pickDefaultDevice(env);
  } else {
    uint64_t requested = toIndex(env, info[0], "deviceIndex");
    if (requested > UINT32_MAX) throwRangeError(env, "deviceIndex out of range");
    index = static_cast<uint32_t>(requested);
  }
  context_ = createContext(env, index, options);
}

std::shared_ptr<Context> Manager::live(Napi::Env env) const {
  if (!context_) throwError(env, "Manager was destroyed");
  return context_;
}

std::shared_ptr<Context> Manager::contextOf(Napi::Env env, const Napi::Value& value) {
  requireTag(env, value, kManagerTag, "manager");
  return Unwrap(value.As<Napi::Object>())->live(env);
}

Napi::Value Manager::deviceIndex(const Napi::CallbackInfo& info) {
  requireThis(info, kManagerTag);
  return Napi::Number::New(info.Env(), live(info.Env())->deviceIndex);
}

Napi::Value Manager::deviceName(const Napi::CallbackInfo& info) {
  requireThis(info, kManagerTag);
  return Napi::String::New(info.Env(), live(info.Env())->physical.properties.deviceName);
}

Napi::Value Manager::forceStaging(const Napi::CallbackInfo& info) {
  requireThis(info, kManagerTag);
  return Napi::Boolean::New(info.Env(), live(info.Env())->options.forceStaging);
}

Napi::Value Manager::destroyed(const Napi::CallbackInfo& info) {
  requireThis(info, kManagerTag);
  return Napi::Boolean::New(info.Env(), !context_);
}

Napi::Value Manager::lost(const Napi::CallbackInfo& info) {
  requireThis(info, kManagerTag);
  return Napi::Boolean::New(info.Env(), context_ && context_->lostAt.load() != nullptr);
}

Napi::Value Manager::savePipelineCache(const Napi::CallbackInfo& info) {
  requireThis(info, kManagerTag);
  live(info.Env())->savePipelineCache(info.Env());
  return info.Env().Undefined();
}

// Saves the pipeline cache and lets go of the context. Objects created from
// this manager keep the device alive until they are destroyed or collected.
Napi::Value Manager::destroy(const Napi::CallbackInfo& info) {
  requireThis(info, kManagerTag);
  if (context_) {
    std::shared_ptr<Context> context = std::move(context_);
    context->savePipelineCache(info.Env());
  }
  return info.Env().Undefined();
}
