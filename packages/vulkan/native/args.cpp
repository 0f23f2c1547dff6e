#include "args.hpp"

#include <cmath>
#include <string>

#include "addon.hpp"
#include "errors.hpp"

uint64_t toIndex(Napi::Env env, const Napi::Value& value, const char* what) {
  if (!value.IsNumber()) throwTypeError(env, std::string(what) + " must be a number");
  double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || number < 0 || std::floor(number) != number || number > 9007199254740992.0) {
    throwRangeError(env, std::string(what) + " must be a non-negative integer, got " + std::to_string(number));
  }
  return static_cast<uint64_t>(number);
}

uint64_t toIndexOr(Napi::Env env, const Napi::Value& value, const char* what, uint64_t fallback) {
  if (value.IsUndefined()) return fallback;
  return toIndex(env, value, what);
}

ByteView toBytes(Napi::Env env, const Napi::Value& value, const char* what) {
  ByteView view;
  if (value.IsTypedArray()) {
    Napi::TypedArray array = value.As<Napi::TypedArray>();
    Napi::ArrayBuffer buffer = array.ArrayBuffer();
    view.data = static_cast<uint8_t*>(buffer.Data()) + array.ByteOffset();
    view.length = array.ByteLength();
  } else if (value.IsDataView()) {
    Napi::DataView dataView = value.As<Napi::DataView>();
    view.data = static_cast<uint8_t*>(dataView.Data());
    view.length = dataView.ByteLength();
  } else if (value.IsArrayBuffer()) {
    Napi::ArrayBuffer buffer = value.As<Napi::ArrayBuffer>();
    view.data = static_cast<uint8_t*>(buffer.Data());
    view.length = buffer.ByteLength();
  } else {
    throwTypeError(env, std::string(what) + " must be a TypedArray, DataView or ArrayBuffer");
  }
  return view;
}

void requireTag(Napi::Env env, const Napi::Value& value, const napi_type_tag& tag, const std::string& what) {
  if (!value.IsObject() || !value.As<Napi::Object>().CheckTypeTag(&tag)) throwTypeError(env, what + " has the wrong type");
}
