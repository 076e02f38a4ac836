// The baseline for decode benchmarks: the loop ogai's engine would be if it did nothing else —
// raw ONNX Runtime C++ API calls on the same graph: feed ids/mask/positions and the previous
// presents, run, argmax the last logits. Benchmarks may include ONNX Runtime directly for this
// baseline only; product code reaches ORT through src/ort.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace ogai::bench {

struct BareLoopResult {
  std::vector<std::int64_t> tokens;  // generated ids: steps + 1 (one from prefill)
  double prefill_seconds = 0;
  double decode_seconds = 0;         // all decode steps
  double decode_run_seconds = 0;     // the part of decode_seconds spent inside Session::Run
};

// A session on a stories260k-style graph (inputs input_ids, attention_mask, position_ids,
// past_key_values.N.{key,value}; outputs logits, present.N.*), one intra-op thread.
class BareOrtLoop {
 public:
  BareOrtLoop(const std::filesystem::path& model, int layers, std::int64_t kv_heads, std::int64_t head_dim);
  ~BareOrtLoop();
  // Greedy decoding of `prompt`: one prefill run, then `steps` decode runs.
  BareLoopResult run(const std::vector<std::int64_t>& prompt, int steps);

 private:
  struct State;
  State* state_;
};

}  // namespace ogai::bench
