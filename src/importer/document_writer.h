// Writing the v1 inference_metadata document for an imported GenAI folder (internal to the
// importer). The layout is the project's canonical single-decoder form (tests/data/stories260k):
// request inputs for ids/mask/positions and one runtime-managed state cell per KV port, the
// `decoder` component with contracts copied from the graph, one invoke then `emit logits`, and
// state-service groups `full_attention` / `sliding_attention` (append along axis 2, never evicted;
// `aliasing: permitted` when the config shares past and present buffers). A multimodal pipeline
// adds its preprocessing, media inputs, components and invokes before the decoder's
// (multimodal_writer.h); its decoder reads `embedding.inputs_embeds` (role inputs_embeds) and,
// when the graph takes them, the same request.input_ids the embedding reads (role token_ids).
//
// Pure function over its inputs; the text is deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "importer/decoder_ports.h"
#include "importer/genai_config.h"
#include "importer/multimodal_ports.h"

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
  // A multimodal pipeline (multimodal_writer.h): preprocessing, media inputs, the sessions before
  // the decoder, whose token input is then inputs_embeds. Null for a text decoder.
  const MultimodalPlan* multimodal = nullptr;
};

std::string write_document(const DocumentPlan& plan);

}  // namespace ogai::importer
