// The DecoderSpec of ../shared/models/stories260k, written out by hand for stage tests that run
// before a package is loaded through its metadata.
#pragma once

#include "generate/decoder_spec.h"

namespace ogai::testing {

inline generate::DecoderSpec stories_spec(kv::StorageMode mode = kv::StorageMode::kAppend) {
  generate::DecoderSpec spec;
  spec.artifact = std::string(OGAI_SHARED_DIR) + "/models/stories260k/model.onnx";
  spec.token_input = "input_ids";
  spec.mask_input = "attention_mask";
  spec.position_input = "position_ids";
  spec.logits_output = "logits";
  spec.vocab_size = 512;
  spec.max_length = 512;
  spec.cache.mode = mode;
  spec.cache.max_length = 512;
  for (int layer = 0; layer < 5; ++layer)
    for (const char* kind : {"key", "value"})
      spec.cache.pairs.push_back({"full_attention", "past_key_values." + std::to_string(layer) + "." + kind,
                                  "present." + std::to_string(layer) + "." + kind, DataType::kFloat32, 4, 8});
  return spec;
}

}  // namespace ogai::testing
