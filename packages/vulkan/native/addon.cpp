// Module entry point: registers listDevices and the four classes.
#include <napi.h>

#include "addon.hpp"
#include "algorithm.hpp"
#include "buffer.hpp"
#include "devices.hpp"
#include "manager.hpp"
#include "sequence.hpp"

static Napi::Object init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  Napi::Function manager = Manager::define(env);
  Napi::Function buffer = Buffer::define(env);
  Napi::Function algorithm = Algorithm::define(env);
  Napi::Function sequence = Sequence::define(env);
  data->manager = Napi::Persistent(manager);
  data->buffer = Napi::Persistent(buffer);
  data->algorithm = Napi::Persistent(algorithm);
  data->sequence = Napi::Persistent(sequence);
  env.SetInstanceData<AddonData>(data);

  exports.Set("listDevices", Napi::Function::New(env, ListDevices, "listDevices"));
  exports.Set("Manager", manager);
  exports.Set("Buffer", buffer);
  exports.Set("Algorithm", algorithm);
  exports.Set("Sequence", sequence);
  return exports;
}

NODE_API_MODULE(ppl_vulkan, init)
