#include "spirv.hpp"

#include <map>
#include <set>

namespace {
// Opcodes, storage classes and decorations from the SPIR-V specification.
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t OpEntryPoint = 15, OpExecutionMode = 16, OpTypeArray = 28, OpTypeRuntimeArray = 29,
                   OpTypePointer = 32, OpVariable = 59, OpDecorate = 71;
constexpr uint32_t ExecutionModelGLCompute = 5, ExecutionModeLocalSize = 17;
constexpr uint32_t StorageClassUniform = 2, StorageClassPushConstant = 9, StorageClassStorageBuffer = 12;
constexpr uint32_t DecorationBufferBlock = 3, DecorationBinding = 33, DecorationDescriptorSet = 34;

// Decodes a null-terminated literal string starting at words[at].
std::string literalString(const std::vector<uint32_t>& words, size_t at, size_t end) {
  std::string out;
  for (size_t i = at; i < end; i++) {
    for (int byte = 0; byte < 4; byte++) {
      char c = static_cast<char>((words[i] >> (8 * byte)) & 0xff);
      if (c == 0) return out;
      out.push_back(c);
    }
  }
  return out;
}
}  // namespace

SpirvSummary inspectSpirv(const std::vector<uint32_t>& words) {
  SpirvSummary summary;
  if (words.size() < 5 || words[0] != kMagic) {
    summary.error = "not a SPIR-V module (bad magic number or too short)";
    return summary;
  }
  std::map<uint32_t, uint32_t> bindingOf, setOf;
  std::set<uint32_t> bufferBlocks;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> pointers;  // id -> (storage class, pointee type)
  std::set<uint32_t> arrayTypes;
  std::vector<std::pair<uint32_t, uint32_t>> variables;  // (result id, pointer type id)
  uint32_t mainEntry = 0;
  bool hasMain = false;

  size_t i = 5;
  while (i < words.size()) {
    uint32_t wordCount = words[i] >> 16, opcode = words[i] & 0xffff;
    if (wordCount == 0 || i + wordCount > words.size()) {
      summary.error = "malformed SPIR-V instruction stream";
      return summary;
    }
    const uint32_t* op = &words[i];
    switch (opcode) {
      case OpEntryPoint:
        if (wordCount >= 4 && op[1] == ExecutionModelGLCompute && literalString(words, i + 3, i + wordCount) == "main") {
          hasMain = true;
          mainEntry = op[2];
        }
        break;
      case OpExecutionMode:
        if (wordCount >= 6 && op[2] == ExecutionModeLocalSize && (!hasMain || op[1] == mainEntry)) {
          summary.localSize = {op[3], op[4], op[5]};
        }
        break;
      case OpDecorate:
        if (wordCount >= 4 && op[2] == DecorationBinding) bindingOf[op[1]] = op[3];
        if (wordCount >= 4 && op[2] == DecorationDescriptorSet) setOf[op[1]] = op[3];
        if (wordCount >= 3 && op[2] == DecorationBufferBlock) bufferBlocks.insert(op[1]);
        break;
      case OpTypeArray:
      case OpTypeRuntimeArray:
        if (wordCount >= 3) arrayTypes.insert(op[1]);
        break;
      case OpTypePointer:
        if (wordCount >= 4) pointers[op[1]] = {op[2], op[3]};
        break;
      case OpVariable:
        if (wordCount >= 4) {
          variables.push_back({op[2], op[1]});
          if (op[3] == StorageClassPushConstant) summary.hasPushConstants = true;
        }
        break;
      default:
        break;
    }
    i += wordCount;
  }
  if (!hasMain) {
    summary.error = "the module has no GLCompute entry point named \"main\"";
    return summary;
  }
  for (const auto& [id, pointerType] : variables) {
    auto binding = bindingOf.find(id);
    if (binding == bindingOf.end()) continue;
    SpirvBinding entry;
    entry.binding = binding->second;
    entry.set = setOf.count(id) ? setOf[id] : 0;
    auto pointer = pointers.find(pointerType);
    if (pointer != pointers.end()) {
      uint32_t storageClass = pointer->second.first, pointee = pointer->second.second;
      entry.isArray = arrayTypes.count(pointee) > 0;
      entry.storageBuffer = storageClass == StorageClassStorageBuffer ||
                            (storageClass == StorageClassUniform && bufferBlocks.count(pointee) > 0);
    }
    summary.bindings.push_back(entry);
  }
  return summary;
}
