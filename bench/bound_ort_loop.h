// The baseline for device decode benchmarks: the bare loop of bare_ort_loop.h, batched and
// through IoBinding, on any execution provider: the graph's pasts and presents stay in the
// session's device memory (each step's presents become the next pasts without a copy), ids and
// the mask are host inputs, the logits come back to the host and every row is argmaxed. All rows
// decode the same prompt. Inputs are found by name (input_ids, attention_mask, optional
// position_ids, past_key_values.*; outputs logits and present.*, any other output ignored), so it
// runs the stories260k and family-1 (e2b) graphs. Benchmarks may include ONNX Runtime directly
// for this baseline only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ogai::bench {

struct BoundLoopResult {
  std::vector<std::int64_t> tokens;  // row 0's generated ids: steps + 1 (one from prefill)
  bool rows_agree = true;            // every row generated row 0's ids
  double seconds = 0;                // prefill and every decode step
};

class BoundOrtLoop {
 public:
  // `ep`: "cpu" or "cuda" (device 0); `threads`: intra-op threads (0 = ORT's default).
  BoundOrtLoop(const std::filesystem::path& model, const std::string& ep, int threads);
  ~BoundOrtLoop();
  BoundOrtLoop(const BoundOrtLoop&) = delete;
  BoundOrtLoop& operator=(const BoundOrtLoop&) = delete;
  // Greedy decoding of `prompt` in `batch` rows: one prefill run, then `steps` decode runs.
  BoundLoopResult run(const std::vector<std::int64_t>& prompt, int batch, int steps);

 private:
  struct State;
  State* state_;
};

}  // namespace ogai::bench
