// Writing the v1 inference_metadata document for an imported GenAI folder (internal to the
// importer). The layout is the project's canonical single-decoder form (tests/data/stories260k):
// request inputs for ids/mask/positions and one runtime-managed state cell per KV port, the
// `decoder` component with contracts copied from the graph, one invoke then `emit logits`, and
// state-service groups `full_attention` / `sliding_attention` (append along axis 2, never evicted;
// `aliasing: permitted` when the config shares past and present buffers).
//
// Pure function over its inputs; the text is deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "importer/decoder_ports.h"
#include "importer/genai_config.h"

namespace ogai::importer {

struct SpecialTokenFact {
  std::string name;  // bos, eos, pad
  std::int64_t id = 0;
  std::string content;
};

struct DocumentPlan {
  const GenaiConfig& config;
  const DecoderPorts& ports;
  std::string artifact;  // the decoder graph, relative to the folder
  std::string tokenizer_algorithm;  // empty: no tokenizer.json (no `package` section)
  bool tokenizer_byte_level = false;
  std::int64_t tokenizer_vocab_size = 0;
  std::vector<SpecialTokenFact> special_tokens;
  std::vector<std::string> notes;  // header comments: what was accepted without a v1 field
};

std::string write_document(const DocumentPlan& plan);

// Shared with the encoder-decoder writer: a YAML scalar (plain when it is a simple name, else
// double-quoted), and a port's flow-style tensor contract read from the graph.
std::string quote(const std::string& s);
std::string contract(const onnx::ValueInfo& v, int batch_axis = 0);

}  // namespace ogai::importer
