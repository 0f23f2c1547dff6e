// Type tags let the addon check an object's class before ObjectWrap::Unwrap
// trusts it: instanceof can be fooled (Object.setPrototypeOf), a type tag
// cannot, and unwrapping an object of another class would reinterpret its
// memory.
#pragma once
#include <napi.h>

#include <string>

inline constexpr napi_type_tag kManagerTag = {0x7f1c3a2b5d4e6f01ULL, 0x9a8b7c6d5e4f3021ULL};
inline constexpr napi_type_tag kBufferTag = {0x7f1c3a2b5d4e6f02ULL, 0x9a8b7c6d5e4f3022ULL};
inline constexpr napi_type_tag kAlgorithmTag = {0x7f1c3a2b5d4e6f03ULL, 0x9a8b7c6d5e4f3023ULL};
inline constexpr napi_type_tag kSequenceTag = {0x7f1c3a2b5d4e6f04ULL, 0x9a8b7c6d5e4f3024ULL};

// Throws a TypeError unless `value` is an object created by the class of `tag`.
void requireTag(Napi::Env env, const Napi::Value& value, const napi_type_tag& tag, const std::string& what);

// Checks the receiver of a method call (guards Class.prototype.method.call(other)).
inline void requireThis(const Napi::CallbackInfo& info, const napi_type_tag& tag) {
  requireTag(info.Env(), info.This(), tag, "the receiver (this)");
}
