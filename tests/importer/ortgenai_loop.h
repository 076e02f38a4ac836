// The reference for ONNX Runtime GenAI's own model folders (../shared/ortgenai): a bare ONNX
// Runtime loop that feeds the decoder graph as the folder's genai_config.json says, written
// against ORT's C++ API directly (not ogai's ort/ layer), batch 1, greedy.
//
// Feeds, by the config's names (ORT GenAI's defaults where it names none): input_ids; an
// attention_mask of ones over past + new positions; position_ids past..past+new-1; every past
// (separate key/value `%d` templates, GPT-2's combined `past_names`, LFM2's `past_conv_names`)
// zeros at first, each with the dtype and fixed dims the graph declares (the batch axis 1, the
// sequence axis 0), then each step the present output of the same `%d` fed back as is. Ids,
// mask and positions are written in the element type the graph declares for them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

namespace ogai::testing {

class GenaiBareLoop {
 public:
  explicit GenaiBareLoop(const std::filesystem::path& folder);
  ~GenaiBareLoop();
  // `steps` greedy ids after `prompt`: one run over the prompt, then one run per new id.
  std::vector<std::int32_t> greedy(const std::vector<std::int32_t>& prompt, int steps);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ogai::testing
