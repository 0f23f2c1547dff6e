// Just enough SPIR-V reading to refuse modules that would make pipeline
// creation invalid usage (which drivers may answer with a crash): it checks
// the header, finds the GLCompute entry point "main", and lists the resource
// bindings and the push-constant block.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

struct SpirvBinding {
  uint32_t set = 0;
  uint32_t binding = 0;
  bool storageBuffer = false;  // StorageBuffer class, or Uniform + BufferBlock
  bool isArray = false;        // descriptor arrays are not supported
};

struct SpirvSummary {
  std::string error;  // "" when the module looks usable
  std::vector<SpirvBinding> bindings;
  bool hasPushConstants = false;
  std::array<uint32_t, 3> localSize{0, 0, 0};  // declared LocalSize (0s with LocalSizeId)
};

SpirvSummary inspectSpirv(const std::vector<uint32_t>& words);
