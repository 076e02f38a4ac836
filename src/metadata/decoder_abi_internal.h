// Internal: pieces of the decoder-ABI derivation shared by decoder_abi.cc and
// decoder_abi_extra.cc.
#pragma once

#include "metadata/decoder_abi.h"

namespace ogai::metadata::detail {

struct AbiInputs {
  const Document& doc;
  const std::map<std::string, onnx::GraphInfo>& graphs;
  const std::map<std::string, std::filesystem::path>& artifacts;
};

const onnx::GraphInfo* graph_of(const AbiInputs& in, const std::string& component);
PortGeometry input_geometry(const AbiInputs& in, const std::string& component, const std::string& port, std::int64_t axis);
PortGeometry output_geometry(const AbiInputs& in, const std::string& component, const std::string& port, std::int64_t axis);
std::string named_layout(const std::string& layout);  // bnsh | bsnh | unknown
StaticCacheAbi static_cache_abi(const Document& doc, const std::string& group_name, const StateGroup& g,
                                const std::string& component);
// The decoder inputs the engine must fill beyond roles and KV (graph inputs, or declared ports).
void add_other_inputs(const AbiInputs& in, DecoderAbi& abi);
std::optional<DecoderAbi> legacy_abi(const AbiInputs& in);
// The first invoke of `component` in the workflow steps, or nullptr.
const InvokeStep* first_invoke(const std::vector<Step>& steps, const std::string& component);

}  // namespace ogai::metadata::detail
