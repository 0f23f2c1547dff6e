// Per-environment addon data: the JS constructors, kept so that arguments can
// be checked with instanceof before ObjectWrap::Unwrap trusts them.
#pragma once
#include <napi.h>

struct AddonData {
  Napi::FunctionReference manager;
  Napi::FunctionReference buffer;
  Napi::FunctionReference algorithm;
  Napi::FunctionReference sequence;
};

inline AddonData& addonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }
