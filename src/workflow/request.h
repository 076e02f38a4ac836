// One workflow request and its result: named caller tensors, the runtime request fields that
// roles draw from (digest §4), and the emitted outputs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ogai/token_id.h"

#include "ort/tensor.h"
#include "workflow/lora_rows.h"

namespace ogai::workflow {

struct RunRequest {
  // Caller tensors keyed by workflow input name (`request.input_ids`) or application alias
  // (`write_indices`). A caller tensor beats every other source, literals included.
  std::map<std::string, ort::Tensor> tensors;
  std::optional<std::vector<TokenId>> prompt_tokens;  // fills a prompt_tokens role
  std::optional<std::int64_t> max_new_tokens;         // fills max_iterations / max_output_tokens roles
  std::optional<std::int64_t> seed;                   // seed role (absent: 0)
  // Whether the request samples follows sampling::request_samples (do_sample, else a temperature
  // > 0 or any filter set). Sampling: the unset values are temperature 1, top_k 0, top_p 1,
  // min_p 0. Greedy: sent as temperature 0, top_k 1, top_p 1, min_p 0 (digest §4).
  std::optional<bool> do_sample;
  std::optional<double> temperature, top_p, min_p;
  std::optional<std::int64_t> top_k;
  bool stop_on_eos = true;  // false: `termination: generation_eos` loops run every iteration
  // Adapters by name, per batch row (lora_rows.h): fills the document's adapters.selection inputs
  // (segments, counts, scales; active all true when declared and not passed). Passing both this
  // and one of those tensors is an error; so is a package without `adapters`.
  std::optional<LoraRows> adapters;
  // Store values to hand back after the run (RunResult::values), e.g. a single-step workflow's
  // presents, which the caller feeds as the next step's pasts. A name never defined is an error.
  std::vector<std::string> capture;
};

// Called for every emitted chunk as it is published: the output, the row (-1 for a dense output)
// and the chunk itself (valid only during the call).
using EmitCallback = std::function<void(const std::string& output, std::int64_t row, const ort::Tensor& chunk)>;

struct RunStats {
  std::int64_t iterations = 0;  // loop-body trips, all loops together
  double total_seconds = 0;     // the whole request
  double ort_seconds = 0;       // inside ONNX Runtime's Run
  // Per row: its token was in its EOS table the last trip a termination predicate saw it
  // active (termination.h); empty when the workflow has no such predicate.
  std::vector<bool> eos_rows;
};

struct RunResult {
  // Every published key: `NAME` (aggregate), `NAME.row.R` (per-row), `NAME.K` / `NAME.row.R.K`
  // (events). A never-emitted output is absent.
  std::map<std::string, ort::Tensor> outputs;
  std::map<std::string, ort::Tensor> values;  // RunRequest::capture
  RunStats stats;

  // The (row, tensor) pairs of a per-row output, in row order.
  std::vector<std::pair<std::int64_t, const ort::Tensor*>> rows(const std::string& output) const;
  // The aggregate value, or else the first row; nullptr when never emitted.
  const ort::Tensor* first(const std::string& output) const;
};

}  // namespace ogai::workflow
