// WorkflowSequence: one request on a package whose own looped workflow generates (the decoder,
// static_cache and speculative conformance fixtures): a resumable interpreter run
// (workflow/run.h) that the workflow engine advances one loop trip per step(). The ids each trip
// emits into the workflow's `tokens` output go through the same OutputStream as native decoding
// (text streamed incrementally, stop strings, stop ids, the package's EOS ids, cancellation).
//
// The workflow owns its loop: its sampler graphs sample (from the request's temperature, top_k,
// top_p, min_p and seed, or greedy by sampling::request_samples), its termination policy stops
// it, and max_new_tokens is its max_iterations / max_output_tokens role, not an ogai cut (a
// speculative trip emits several ids). The finish reason is `stop` when a stop rule of ogai's
// ended it or the workflow ended on its own before its budget of trips, else `length`.
// Refused at construction (kUnsupported, naming the field): what the workflow cannot do or ogai
// cannot apply around it: logprobs (the workflow exposes no logits), structured output, penalties,
// logit_bias, typical_p, prompt logprobs. A multi-row emit fails the request by name.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "generate/generation.h"
#include "generate/media_workflow.h"
#include "generate/output_stream.h"
#include "generate/request.h"
#include "generate/sequence_steps.h"
#include "ort/tensor.h"
#include "tokenizer/tokenizer.h"
#include "workflow/program.h"
#include "workflow/run.h"

namespace ogai::generate {

// What a looped workflow package gives its requests (Model::Impl holds it).
struct WorkflowModel {
  workflow::Program program;
  std::string tokens_output;                        // the output with role `tokens`
  const tokenizer::Tokenizer* tokenizer = nullptr;  // null: prompts are ids, text is ids as text
  std::map<std::string, ort::Tensor> inputs;        // LoadOptions::workflow_inputs, copied per request
  std::optional<MediaWorkflow> media;               // a speech / image workflow (tokens_output empty)
};

class WorkflowSequence : public Generation {
 public:
  // Throws ogai::Error for options the workflow cannot serve and for what binding refuses.
  WorkflowSequence(const WorkflowModel& model, const ResolvedRequest& request, std::span<const TokenId> prompt,
                   StreamCallback on_token);

  // One loop trip: its ids are streamed; the sequence is done once the workflow ended or a stop
  // rule fired. Errors propagate (the engine keeps them with stop_with_error).
  void step();

  bool done() const override { return done_; }
  void stop_cancelled() override;
  void stop_with_error(std::exception_ptr error) override;
  void finish() override;
  std::exception_ptr error() const override { return error_; }
  GenerationResult& result() override { return result_; }

 private:
  void take(const std::string& output, std::int64_t row, const ort::Tensor& chunk);
  FinishReason end_reason() const;  // once the workflow ended on its own

  ResolvedRequest request_;
  StreamCallback on_token_;
  GenerationResult result_;
  OutputStream output_;
  std::string tokens_output_;
  std::int64_t budget_ = -1;             // the trips the workflow may run (max_new_tokens), -1 = its own
  std::vector<TokenId> pending_;         // ids emitted by the trip in progress
  std::vector<std::int64_t> chunk_ids_;  // one emitted chunk's ids as the tensor holds them (reused)
  std::optional<std::int64_t> row_;      // the one row the tokens output publishes
  std::optional<workflow::Run> run_;
  PhaseTimes times_;
  bool done_ = false, finished_ = false;
  std::exception_ptr error_;
};

}  // namespace ogai::generate
