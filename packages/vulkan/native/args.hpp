// Argument validation shared by the JS-facing classes. Everything that comes
// from JavaScript passes through here before it can reach a Vulkan call.
#pragma once
#include <napi.h>

#include <cstddef>
#include <cstdint>

// A non-negative integer number no larger than 2^53 (JS's safe range).
uint64_t toIndex(Napi::Env env, const Napi::Value& value, const char* what);

// Like toIndex, but `fallback` when the value is undefined.
uint64_t toIndexOr(Napi::Env env, const Napi::Value& value, const char* what, uint64_t fallback);

// A view of the bytes of a TypedArray, DataView or ArrayBuffer.
struct ByteView {
  uint8_t* data = nullptr;
  size_t length = 0;
};
ByteView toBytes(Napi::Env env, const Napi::Value& value, const char* what);

