#include "generate/live_sequence.h"

#include <algorithm>

#include "base/error.h"
#include "generate/prompt_media.h"

namespace ogai::generate {
namespace {

// The ids the sampler's history (the repetition penalty) reads: Phi-3-V's soft tokens are
// negative (-N for the N-th image: features, not vocabulary entries), so they are left out.
std::vector<TokenId> vocabulary_ids(std::span<const TokenId> prompt) {
  std::vector<TokenId> ids;
  ids.reserve(prompt.size());
  for (TokenId id : prompt)
    if (id >= 0) ids.push_back(id);
  return ids;
}

GenerationResult initial_result(std::span<const TokenId> prompt, const ResolvedRequest& request) {
  GenerationResult result;
  result.prompt_ids = fit_prompt(prompt, request);
  return result;
}

}  // namespace

LiveSequence::LiveSequence(SequenceKey, SequenceStart start)
    : model_(start.model),
      request_(start.request),
      on_token_(std::move(start.on_token)),
      state_(std::move(start.state)),
      result_(initial_result(start.prompt, request_)),
      sampler_(request_.sampling, model_.decoder.spec().vocab_size),
      output_(model_.tokenizer, request_, on_token_, result_),
      logprobs_(request_.logprobs) {
  times_.start = Clock::now();
  if (request_.media)
    sampler_.reset(vocabulary_ids(result_.prompt_ids));
  else
    sampler_.reset(result_.prompt_ids);
  if (!start.speculation.drafter) return;
  if (request_.prompt_logprobs)
    fail(ErrorCode::kUnsupported, "prompt_logprobs",
         "prompt log-probabilities are not supported with speculative decoding");
  if (request_.prefill_only)
    fail(ErrorCode::kUnsupported, "max_new_tokens", "0 (prefill only) is not supported with speculative decoding");
  speculative_ = std::make_unique<Speculative>(*this, std::move(start.speculation));
}

LiveSequence::~LiveSequence() = default;

SequenceState& LiveSequence::state() {
  if (!state_) state_.emplace(model_.decoder);
  return *state_;
}

std::int64_t LiveSequence::max_positions() const {
  const auto prompt = static_cast<std::int64_t>(result_.prompt_ids.size());
  const auto& stop = request_.stop;
  std::int64_t most = stop.max_new_tokens ? prompt + *stop.max_new_tokens : stop.context_limit.value_or(prompt + 1);
  if (stop.context_limit) most = std::min(most, *stop.context_limit);
  return std::max(most, prompt);
}

const MediaMarks& LiveSequence::prompt_media() const {
  static const MediaMarks none;
  return request_.media ? request_.media->marks : none;
}

std::size_t LiveSequence::prefill_remaining() const {
  if (phase_ != Phase::kPrefill) return 0;
  if (started_) return result_.prompt_ids.size() - fed_;
  if (!state_) return result_.prompt_ids.size();
  const auto common = common_media_prefix(state_->tokens, state_->media, result_.prompt_ids, prompt_media());
  return result_.prompt_ids.size() - std::min(common, result_.prompt_ids.size() - 1);
}

// Keeps the prefix the state holds (none with prompt logprobs: every position's logits are needed).
void LiveSequence::begin_prefill() {
  started_ = true;
  queued_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - times_.start).count();
  if (request_.prompt_logprobs) {
    truncate_state(state(), 0);
    prompt_logprobs_ =
        std::make_unique<PromptLogprobs>(result_.prompt_ids, *request_.logprobs, result_.prompt_logprobs);
  } else {
    fed_ = reuse_prefix(state(), result_.prompt_ids, prompt_media());
    reused_ = fed_;
  }
}

void LiveSequence::prefill(std::size_t budget) {
  if (phase_ != Phase::kPrefill) return;
  if (cancelled()) return stop_cancelled();
  if (!started_) begin_prefill();
  const std::size_t n = std::min(std::max<std::size_t>(budget, 1), result_.prompt_ids.size() - fed_);
  const std::size_t base = fed_;
  StepHook hook;
  if (prompt_logprobs_)
    hook = [&](StepOutput& out, std::size_t begin, std::size_t count) {
      prompt_logprobs_->observe(out, base + begin, count);
    };
  StepOutput out = feed(model_.decoder, state(), std::span(result_.prompt_ids).subspan(base, n), request_.prefill_chunk,
                        times_.run_seconds, hook, request_.media.get(),
                        prompt_logprobs_ ? Logits::kAll : Logits::kLast);
  fed_ += n;
  if (fed_ < result_.prompt_ids.size()) return;
  times_.prefilled = times_.first_token = Clock::now();
  if (request_.prefill_only) {
    phase_ = Phase::kDone;
    return;
  }
  sample_first(out);
}

void LiveSequence::sample_first(StepOutput& out) {
  const std::int64_t position = out.last_position();  // the last prompt token's logits
  phase_ = Phase::kDecode;
  std::span<float> row = out.row_logits(0, position, scratch_);
  if (!forks_.empty()) first_logits_.assign(row.begin(), row.end());
  emit(row);
  if (speculative_) speculative_->decoder_.start(out, position);
  times_.first_token = Clock::now();
}

void LiveSequence::start_as_fork(LiveSequence& parent) {
  if (cancelled()) return stop_cancelled();
  state_.emplace(parent.state().copy());
  started_ = true;
  fed_ = result_.prompt_ids.size();
  reused_ = parent.reused_;
  queued_ms_ = parent.queued_ms_;
  result_.prompt_logprobs = parent.result_.prompt_logprobs;
  times_.run_seconds = parent.times_.run_seconds;
  times_.prefilled = Clock::now();
  if (parent.first_logits_.empty()) {  // the parent only prefilled (max_new_tokens 0)
    phase_ = Phase::kDone;
    return;
  }
  phase_ = Phase::kDecode;
  if (speculative_ && parent.speculative_) speculative_->decoder_.start_as_copy(parent.speculative_->decoder_);
  scratch_ = parent.first_logits_;
  emit(scratch_);
  times_.first_token = Clock::now();
}

void LiveSequence::emit(std::span<float> raw) {
  pending_ = sampler_.next(logprobs_.observe(raw, sampler_.leaves_row()));
  if (output_.push(pending_, logprobs_.entry(pending_, sampler_.raw_softmax_sum()))) phase_ = Phase::kDone;
}

void LiveSequence::decode(StepOutput& out, std::int64_t row, double run_seconds) {
  sample(out, row, run_seconds);
  publish();
}

void LiveSequence::sample(StepOutput& out, std::int64_t row, double run_seconds) {
  sampled_ = false;
  if (phase_ != Phase::kDecode) return;
  state_->tokens.push_back(pending_);  // its KV is now in the batch
  times_.run_seconds += run_seconds;
  if (cancelled()) return;  // publish() stops it, on the engine's thread
  pending_ = sampler_.next(logprobs_.observe(out.row_logits(row, 0, scratch_), sampler_.leaves_row()));
  sampled_ = true;
}

void LiveSequence::publish() {
  if (phase_ != Phase::kDecode) return;
  if (!sampled_) return stop_cancelled();
  sampled_ = false;
  if (output_.push(pending_, logprobs_.entry(pending_, sampler_.raw_softmax_sum()))) phase_ = Phase::kDone;
  if (speculative_) speculative_->decoder_.observe_plain(pending_);
}

std::span<const TokenId> LiveSequence::drafted() const {
  if (!speculative_ || phase_ != Phase::kDecode) return {&pending_, 1};
  return speculative_->decoder_.proposed();
}

void LiveSequence::stop_cancelled() {
  if (phase_ == Phase::kDone) return;
  output_.cancel();
  phase_ = Phase::kDone;
}

void LiveSequence::stop_with_error(std::exception_ptr error) {
  error_ = std::move(error);
  phase_ = Phase::kDone;
}

void LiveSequence::finish() {
  if (finished_) return;
  finished_ = true;
  if (!error_) {
    try {
      output_.finish();  // may call the stream callback one last time
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  times_.end = Clock::now();
  if (times_.prefilled == Clock::time_point{}) times_.prefilled = times_.first_token = times_.end;
  fill_timings(result_, times_);
  result_.cached_prompt_tokens = static_cast<std::int64_t>(reused_);
  result_.timings.queue_ms = queued_ms_;
}

LiveSequence::Speculative::Speculative(LiveSequence& sequence, Speculation speculation)
    : sequence_(sequence),
      decoder_(sequence.model_, std::move(speculation), sequence.request_, sequence.sampler_, sequence.logprobs_,
               sequence.output_, sequence.result_) {}

void LiveSequence::Speculative::speculate() {
  LiveSequence& s = sequence_;
  if (s.phase_ != Phase::kDecode) return;
  if (s.cancelled()) return s.stop_cancelled();
  if (decoder_.step(*s.state_, s.pending_, s.times_.run_seconds)) s.phase_ = Phase::kDone;
}

bool LiveSequence::Speculative::drafts_from_tokens() const {
  return !decoder_.drafter().needs_hidden() && !decoder_.drafter().needs_target_cache();
}

std::span<const TokenId> LiveSequence::Speculative::draft(int limit) {
  LiveSequence& s = sequence_;
  if (s.phase_ != Phase::kDecode) return {&s.pending_, 1};
  return decoder_.propose(s.state_->tokens, nullptr, s.pending_, limit);
}

bool LiveSequence::Speculative::trims_drafts() const { return sequence_.sampler_.params().greedy(); }

double LiveSequence::Speculative::acceptance() const { return decoder_.gate().acceptance(); }

void LiveSequence::Speculative::trim_draft(std::size_t keep) {
  if (trims_drafts() && sequence_.phase_ == Phase::kDecode) decoder_.trim(keep);
}

std::size_t LiveSequence::Speculative::verify(StepOutput& out, std::int64_t row, double run_seconds) {
  LiveSequence& s = sequence_;
  if (s.phase_ != Phase::kDecode) return 1;
  const std::span<const TokenId> fed = decoder_.proposed();
  s.state_->tokens.push_back(fed[0]);  // the pending token's KV is kept whatever happens next
  s.times_.run_seconds += run_seconds;
  if (s.cancelled()) {
    s.stop_cancelled();
    return 1;
  }
  std::size_t kept = 1;
  if (decoder_.verify(out, row, s.pending_, kept)) s.phase_ = Phase::kDone;
  s.state_->tokens.insert(s.state_->tokens.end(), fed.begin() + 1, fed.begin() + static_cast<std::ptrdiff_t>(kept));
  return kept;
}

}  // namespace ogai::generate
