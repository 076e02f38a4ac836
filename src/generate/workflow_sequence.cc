#include "generate/workflow_sequence.h"

#include <limits>
#include <random>

#include "base/error.h"
#include "workflow/tensor_ops.h"

namespace ogai::generate {
namespace {

void refuse(bool asked, const char* field, const char* why) {
  if (asked) fail(ErrorCode::kUnsupported, field, "{}", why);
}

// What the workflow's graphs cannot honour: refused by name rather than ignored.
void check_request(const ResolvedRequest& r) {
  const auto& s = r.sampling;
  refuse(r.logprobs.has_value(), "logprobs",
         "this package's workflow samples inside its own graphs and exposes no logits, so log-probabilities cannot "
         "be reported");
  refuse(r.prompt_logprobs, "prompt_logprobs", "this package's workflow exposes no logits");
  refuse(s.constraint != nullptr, "response_format",
         "structured output masks the logits before sampling, and this package's workflow samples inside its graphs");
  refuse(s.repetition_penalty != 1.0, "repetition_penalty",
         "this package's workflow sampler has no repetition penalty");
  refuse(s.frequency_penalty != 0.0, "frequency_penalty", "this package's workflow sampler has no frequency penalty");
  refuse(s.presence_penalty != 0.0, "presence_penalty", "this package's workflow sampler has no presence penalty");
  refuse(!s.logit_bias.empty(), "logit_bias", "this package's workflow sampler has no logit bias");
  refuse(s.typical_p != 1.0, "typical_p", "this package's workflow sampler has no typical_p");
}

workflow::RunRequest make_run_request(const WorkflowModel& model, const ResolvedRequest& r,
                                      std::span<const TokenId> prompt) {
  workflow::RunRequest run;
  run.prompt_tokens = std::vector<TokenId>(prompt.begin(), prompt.end());
  if (r.stop.max_new_tokens)
    run.max_new_tokens = *r.stop.max_new_tokens;
  else if (r.prefill_only)
    run.max_new_tokens = 0;
  const auto& s = r.sampling;
  run.do_sample = s.do_sample && s.temperature > 0;  // the decision resolve_request took
  if (*run.do_sample) {
    run.temperature = s.temperature;
    run.top_k = s.top_k;
    run.top_p = s.top_p;
    run.min_p = s.min_p;
    // Unseeded sampling draws a seed, as native decoding does; a seeded request is reproducible.
    run.seed = s.seed ? static_cast<std::int64_t>(*s.seed & 0x7fffffffffffffffULL)
                      : static_cast<std::int64_t>(std::random_device{}() & 0x7fffffff);
  } else if (s.seed) {
    run.seed = static_cast<std::int64_t>(*s.seed & 0x7fffffffffffffffULL);
  }
  run.stop_on_eos = r.stop_on_eos;
  for (const auto& [name, tensor] : model.inputs) run.tensors.emplace(name, ort::Tensor::copy_of(tensor));
  return run;
}

// Without a declared context, the most new tokens one workflow request may ask for. A workflow
// may size its state by the budget before its first trip (the decoder fixture allocates about
// 330 bytes per token up front), so the bound keeps four such requests under 100 MB: 2^20 let one
// request hold 330 MB and work 1 s before the workflow's own bound refused it (issue 37 item 2).
constexpr std::int64_t kMaxWorkflowNewTokens = 1 << 16;

// The budget is checked before the plan sizes anything by it: 10^7 new tokens once allocated
// 2.6 GB and ran 10 s before a 400 (issue 37 item 2).
void check_budget(const ResolvedRequest& r, std::size_t prompt) {
  if (!r.stop.max_new_tokens) return;
  const std::int64_t asked = *r.stop.max_new_tokens, used = static_cast<std::int64_t>(prompt);
  if (r.stop.context_limit && asked > *r.stop.context_limit - used)
    fail(ErrorCode::kInvalidArgument, "max_new_tokens",
         "{} new tokens after a prompt of {} exceed the model's context of {} positions", asked, used,
         *r.stop.context_limit);
  if (!r.stop.context_limit && asked > kMaxWorkflowNewTokens)
    fail(ErrorCode::kInvalidArgument, "max_new_tokens",
         "{} is above {}, the most a workflow package without model.max_sequence_length may generate", asked,
         kMaxWorkflowNewTokens);
}

GenerationResult with_prompt(std::span<const TokenId> prompt) {
  GenerationResult r;
  r.prompt_ids.assign(prompt.begin(), prompt.end());
  return r;
}

}  // namespace

WorkflowSequence::WorkflowSequence(const WorkflowModel& model, const ResolvedRequest& request,
                                   std::span<const TokenId> prompt, StreamCallback on_token)
    : request_(request),
      on_token_(std::move(on_token)),
      result_(with_prompt(prompt)),
      output_(model.tokenizer, request_, on_token_, result_),
      tokens_output_(model.tokens_output) {
  times_.start = Clock::now();
  if (tokens_output_.empty() && model.media)
    fail(ErrorCode::kUnsupported, "model",
         "this package's workflow emits {} (output '{}'), not tokens: use POST <server>/v1/{} or Model::{}",
         model.media->kind, model.media->output, model.media->kind == "speech" ? "audio/speech" : "images/generations",
         model.media->kind == "speech" ? "synthesize_speech" : "generate_images");
  if (tokens_output_.empty())
    fail(ErrorCode::kUnsupported, "model", "the package transcribes audio (its transcription profile decodes frame "
         "logits) and has no `tokens` output to generate text from: POST /v1/audio/transcriptions, or `ogai run`");
  check_request(request_);
  check_budget(request_, prompt.size());
  auto run_request = make_run_request(model, request_, prompt);
  if (run_request.max_new_tokens) budget_ = *run_request.max_new_tokens;
  // The workflow owns the budget: ogai's own cut would stop a speculative trip part way.
  request_.stop.max_new_tokens.reset();
  run_.emplace(
      model.program, std::move(run_request),
      [this](const std::string& output, std::int64_t row, const ort::Tensor& chunk) { take(output, row, chunk); });
}

void WorkflowSequence::take(const std::string& output, std::int64_t row, const ort::Tensor& chunk) {
  if (output != tokens_output_) return;
  if (!row_) row_ = row;
  if (*row_ != row)
    fail(ErrorCode::kUnsupported, "output '" + output + "'",
         "the workflow emitted rows {} and {}; a generation streams one row", *row_, row);
  workflow::int_values_into(chunk, chunk_ids_, workflow::WhatFn([&] { return "output '" + output + "'"; }));
  for (std::int64_t id : chunk_ids_) {  // the tensor's ids as TokenId (ogai/token_id.h)
    if (id < std::numeric_limits<TokenId>::min() || id > std::numeric_limits<TokenId>::max())
      fail(ErrorCode::kInvalidArgument, "output '" + output + "'", "emitted token id {} does not fit 32 bits", id);
    pending_.push_back(static_cast<TokenId>(id));
  }
}

void WorkflowSequence::step() {
  if (done_) return;
  if (cancelled()) return stop_cancelled();
  const auto t0 = Clock::now();
  const bool more = run_->step();
  times_.run_seconds = run_->stats().ort_seconds;
  if (times_.prefilled == Clock::time_point{}) times_.prefilled = t0;
  for (auto id : pending_) {
    if (result_.ids.empty()) times_.first_token = Clock::now();
    if (output_.push(id)) {
      done_ = true;
      break;
    }
  }
  pending_.clear();
  if (done_ || more) return;
  done_ = true;
  output_.end(end_reason());
}

// The workflow's loop ended on its own: on a row's EOS (its termination predicate's table, also in
// the last trip its budget allowed) it is `stop`; at its budget, or without one, `length`.
FinishReason WorkflowSequence::end_reason() const {
  const auto& stats = run_->stats();
  const std::size_t row = static_cast<std::size_t>(row_.value_or(0));
  if (request_.stop_on_eos && row < stats.eos_rows.size() && stats.eos_rows[row]) return FinishReason::kStop;
  const bool used_budget = budget_ >= 0 && stats.iterations >= budget_;
  return used_budget || budget_ < 0 ? FinishReason::kLength : FinishReason::kStop;
}

void WorkflowSequence::stop_cancelled() {
  if (done_) return;
  output_.cancel();
  done_ = true;
}

void WorkflowSequence::stop_with_error(std::exception_ptr error) {
  error_ = std::move(error);
  done_ = true;
}

void WorkflowSequence::finish() {
  if (finished_) return;
  finished_ = true;
  run_.reset();  // the run's values (its KV cells) are freed at once
  if (!error_) {
    try {
      output_.finish();
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  times_.end = Clock::now();
  if (times_.prefilled == Clock::time_point{}) times_.prefilled = times_.end;
  if (times_.first_token == Clock::time_point{}) times_.first_token = times_.end;
  fill_timings(result_, times_);
}

}  // namespace ogai::generate
