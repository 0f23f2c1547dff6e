// Module entry point: registers listDevices, the four classes and the test hooks.
#include <napi.h>

#include "algorithm.hpp"
#include "buffer.hpp"
#include "devices.hpp"
#include "manager.hpp"
#include "sequence.hpp"
#include "test_hooks.hpp"

static Napi::Object init(Napi::Env env, Napi::Object exports) {
  exports.Set("listDevices", Napi::Function::New(env, ListDevices, "listDevices"));
  exports.Set("Manager", Manager::define(env));
  exports.Set("Buffer", Buffer::define(env));
  exports.Set("Algorithm", Algorithm::define(env));
  exports.Set("Sequence", Sequence::define(env));
  exports.Set("testHooks", testHooksObject(env));
  return exports;
}

NODE_API_MODULE(ppl_vulkan, init)
