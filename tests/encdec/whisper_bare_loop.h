// The reference for encoder-decoder (Whisper-form) folders: a bare ONNX Runtime loop written
// against ORT's C++ API directly (not ogai's ort/ or generate/ layers), batch 1, greedy.
// The encoder runs once on the given features; its present_{key,value}_cross_N outputs are fed as
// the decoder's past_{key,value}_cross_N on every step; the self KV starts empty ([1, heads, 0,
// head_size]) and each step's presents are fed back; ids are int32 or int64 as the graph declares.
// Port names come from the folder's genai_config.json (`%d` templates, layers 0..N-1).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

namespace ogai::testing {

class WhisperBareLoop {
 public:
  explicit WhisperBareLoop(const std::filesystem::path& folder);
  ~WhisperBareLoop();
  // Picks the next id from one step's logits [vocab].
  using Pick = std::function<std::int32_t(const float* logits, std::int64_t vocab)>;
  // `steps` greedy ids after `prompt`, the encoder fed `features` ([1, mels, frames] row-major);
  // `pick` replaces the argmax over the whole vocabulary when given.
  std::vector<std::int32_t> greedy(const std::vector<float>& features, const std::vector<std::int64_t>& shape,
                                   const std::vector<std::int32_t>& prompt, int steps, const Pick& pick = {});

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ogai::testing
