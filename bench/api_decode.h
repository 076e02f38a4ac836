// ogai's side of the decode benchmark: greedy generation through the public API
// (ogai::Model::generate, EOS ignored), and the runtime's own cost per token at a given context.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ogai/model.h"

namespace ogai::bench {

struct ApiRun {
  std::vector<std::int64_t> tokens;  // generated ids
  double call_seconds = 0;           // the whole generate() call, timed by the caller
  double decode_seconds = 0;         // Timings.decode_ms: first generated token to the end
};

// Greedy, ignore_eos, exactly `tokens` new tokens from `prompt`.
ApiRun run_api(const Model& model, const std::vector<std::int32_t>& prompt, int tokens);

// ogai's own time (Timings.runtime_ms: outside ONNX Runtime) per decode token around context
// `prompt.size()`: generate `lead` tokens and `lead + window` tokens from the same prompt; the
// difference over the `window` extra decode steps is the per-token cost (prefill and per-call
// costs cancel). Callers keep the lowest of each over several pairs, then take the difference.
struct OwnTime {
  double lead_ms = 0;    // runtime_ms of the call with `lead` new tokens
  double longer_ms = 0;  // runtime_ms of the call with `lead + window` new tokens
};
OwnTime own_time(const Model& model, const std::vector<std::int32_t>& prompt, int lead, int window);

// The first `length` ids of a long story text, tokenized with BOS (a prompt of a given context).
std::vector<std::int32_t> story_prompt(const Model& model, int length);

}  // namespace ogai::bench
