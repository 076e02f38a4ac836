#include "generate/engine.h"

#include <time.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "base/error.h"

namespace ogai::generate {
namespace {

// Bytes per position of the append pairs, and the fixed bytes per sequence of the others.
std::pair<std::size_t, std::size_t> state_geometry(const kv::CacheSpec& spec) {
  std::size_t per_position = 0, fixed = 0;
  for (const auto& pair : spec.pairs) {
    const std::size_t element = dtype_size(pair.dtype);
    if (pair.update == kv::Update::kAppend) {
      per_position += static_cast<std::size_t>(pair.planes() * pair.kv_heads * pair.head_dim) * element;
    } else if (pair.update == kv::Update::kIndexedScatter) {
      fixed += static_cast<std::size_t>(pair.kv_heads * pair.capacity * pair.head_dim) * element;
    } else {
      std::size_t n = element;
      for (auto d : pair.state_dims) n *= static_cast<std::size_t>(std::max<std::int64_t>(d, 1));
      fixed += n;
    }
  }
  return {per_position, fixed};
}

// CPU seconds of the calling thread: a step's cost as the width rule weighs it (speculation_width.h),
// without the time other processes took the core (a loaded machine's wall times jump by whole
// scheduler slices). ONNX Runtime's intra-op pool threads are not counted; the caller's share of a
// parallel run (it works and spins meanwhile) stands for the run.
double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

Engine::Engine(const SequenceModel& model, EngineLimits limits, PrefixCache* prefix)
    : limits_(limits),
      prefix_(model.decoder.spec().cache.prefix_reusable ? prefix : nullptr),
      batch_(model.decoder.spec().cache, model.decoder.state_memory()),
      step_(model.decoder),
      samplers_(limits.sampling_threads > 0 ? static_cast<std::size_t>(limits.sampling_threads)
                                            : WorkPool::default_threads()) {
  if (limits_.sampling_threads < 0)
    fail(ErrorCode::kInvalidArgument, "sampling_threads", "{} must be at least 0 (0 = one per hardware thread)",
         limits_.sampling_threads);
  if (limits_.max_rows < 1)
    fail(ErrorCode::kInvalidArgument, "max_sequences", "{} must be at least 1", limits_.max_rows);
  if (limits_.step_tokens < 1) fail(ErrorCode::kInvalidArgument, "max_step_tokens", "must be at least 1");
  std::tie(bytes_per_position_, fixed_bytes_) = state_geometry(model.decoder.spec().cache);
  batch_verifies_ = verifies_in_batch(model.decoder.spec());
  mrope_ = model.decoder.spec().mrope;
  equal_lengths_ = model.decoder.spec().mask_input.empty() && batch_.left_padded();
}

void Engine::add(std::shared_ptr<LiveSequence> sequence) {
  if (sequence->done()) return finish(std::move(sequence));
  waiting_.push_back(std::move(sequence));
}

void Engine::step() {
  drop_cancelled();
  unpark();
  decode();
  speculate();
  admit();
  prefill();
}

void Engine::add_generation(std::shared_ptr<Generation> generation) {
  auto sequence = std::dynamic_pointer_cast<LiveSequence>(std::move(generation));
  if (!sequence) fail(ErrorCode::kInternal, "engine", "a native engine steps native sequences only");
  add(std::move(sequence));
}

std::vector<std::shared_ptr<Generation>> Engine::take_done() {
  std::vector<std::shared_ptr<Generation>> out;
  for (auto& s : take_finished()) out.push_back(std::move(s));
  return out;
}

std::vector<std::shared_ptr<LiveSequence>> Engine::take_finished() {
  std::vector<std::shared_ptr<LiveSequence>> out;
  out.swap(finished_);
  return out;
}

void Engine::finish(std::shared_ptr<LiveSequence> sequence) {
  reservations_.erase(sequence.get());  // its KV reservation, if admitted, goes back to the budget
  sequence->finish();
  if (prefix_ && !sequence->error() && sequence->has_state()) {
    SequenceState& state = sequence->state();
    if (!state.tokens.empty() && state.cache.length() == static_cast<std::int64_t>(state.tokens.size()))
      prefix_->insert(limits_.keep_states ? state.copy() : std::move(state));
  }
  finished_.push_back(std::move(sequence));
}

std::size_t Engine::kv_bytes() const {
  std::size_t bytes = batch_.bytes();
  for (const auto& s : speculating_) bytes += s->state().cache.bytes();
  for (const auto& s : parked_) bytes += s->state().cache.bytes();
  return bytes;
}

std::size_t Engine::projected_bytes(const LiveSequence& sequence) const {
  return fixed_bytes_ + static_cast<std::size_t>(sequence.max_positions()) * bytes_per_position_;
}

bool Engine::fits(const LiveSequence& sequence) const {
  if (limits_.kv_bytes == 0 || (rows_.empty() && speculating_.empty() && prefilling_.empty())) return true;
  return kv_budget_.held() + projected_bytes(sequence) <= limits_.kv_bytes;
}

void Engine::leave(std::size_t row) {
  std::shared_ptr<LiveSequence> sequence = std::move(rows_[row]);
  const auto r = static_cast<std::int64_t>(row);
  if (limits_.keep_states || prefix_) {
    SequenceState& state = sequence->state();
    state.cache = batch_.take_row(r);
    state.attention = AttentionState::all_real(state.cache.length());
  } else {
    batch_.remove_row(r);
  }
  rows_[row] = std::move(rows_.back());
  rows_.pop_back();
  finish(std::move(sequence));
}

void Engine::drop_cancelled() {
  for (auto* queue : {&waiting_, &prefilling_, &parked_}) {
    for (auto it = queue->begin(); it != queue->end();) {
      if (!(*it)->cancelled()) {
        ++it;
        continue;
      }
      (*it)->stop_cancelled();
      release_forks(**it);
      finish(std::move(*it));
      it = queue->erase(it);
    }
  }
  for (std::size_t r = rows_.size(); r-- > 0;) {
    if (!rows_[r]->cancelled()) continue;
    rows_[r]->stop_cancelled();
    leave(r);
  }
  for (std::size_t i = speculating_.size(); i-- > 0;) {
    if (!speculating_[i]->cancelled()) continue;
    speculating_[i]->stop_cancelled();
    retire(i);
  }
}

// A speculative sequence that ended: its state is already its own.
void Engine::retire(std::size_t speculating) {
  std::shared_ptr<LiveSequence> sequence = std::move(speculating_[speculating]);
  speculating_.erase(speculating_.begin() + static_cast<std::ptrdiff_t>(speculating));
  finish(std::move(sequence));
}

void Engine::speculate() {
  for (const auto& sequence : speculating_) {
    try {
      sequence->speculation()->speculate();
      ++counters_.speculative_runs;
    } catch (...) {  // this sequence's run or drafter failed: it ends alone
      sequence->stop_with_error(std::current_exception());
    }
  }
  for (std::size_t i = speculating_.size(); i-- > 0;)
    if (speculating_[i]->done()) retire(i);
}

// Whether speculative rows can verify in the shared run: multi-token steps over left-padded append
// caches need the mask to hide each row's padding (batch_step.h), and no per-row index ports.
bool Engine::verifies_in_batch(const DecoderSpec& spec) const {
  return batch_.takes_multi_token_steps() && !spec.mask_input.empty() && spec.write_indices_input.empty() &&
         spec.cache_lengths_input.empty();
}

// The speculative rows propose (at most as many tokens as the context leaves the widest row);
// returns the run's width: 1 + the longest proposal. A row whose drafter fails leaves at once.
std::int64_t Engine::draft() {
  std::int64_t seq = 1;
  int limit = std::numeric_limits<int>::max();
  if (const std::int64_t most = batch_.spec().max_length; most > 0)
    limit = static_cast<int>(std::max<std::int64_t>(most - batch_.width() - 1, 0));
  for (const auto& row : rows_) {
    if (!row->speculation()) continue;
    try {
      seq = std::max<std::int64_t>(seq, static_cast<std::int64_t>(row->speculation()->draft(limit).size()));
    } catch (...) {  // its drafter failed: it ends alone
      row->stop_with_error(std::current_exception());
    }
  }
  for (std::size_t r = rows_.size(); r-- > 0;)
    if (rows_[r]->done()) leave(r);
  return seq;
}

// The run's width for the rows' proposals (speculation_width.h); greedy rows' proposals are
// trimmed to it.
std::int64_t Engine::width() {
  drafts_.resize(rows_.size());
  std::int64_t widest = 1;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const LiveSequence& row = *rows_[r];
    const LiveSequence::Speculative* speculation = row.speculation();
    drafts_[r] = {static_cast<std::int64_t>(row.drafted().size()) - 1, speculation ? speculation->acceptance() : 0.0,
                  !speculation || speculation->trims_drafts()};
    widest = std::max(widest, drafts_[r].proposed + 1);
  }
  const auto rows = static_cast<std::int64_t>(rows_.size());
  const std::int64_t seq = choose_width(drafts_, width_cost_.relative(rows, widest), yield_.factor(rows));
  expected_extra_ = expected_extra_tokens(drafts_, seq);
  for (const auto& row : rows_)
    if (row->speculation()) row->speculation()->trim_draft(static_cast<std::size_t>(seq - 1));
  return seq;
}

void Engine::decode() {
  for (std::size_t r = rows_.size(); r-- > 0;) {  // a row that cannot grow fails alone
    std::string error = batch_.room_error(static_cast<std::int64_t>(r));
    if (error.empty()) continue;
    rows_[r]->stop_with_error(std::make_exception_ptr(Error(ErrorCode::kInvalidArgument, "kv cache", error)));
    leave(r);
  }
  std::int64_t seq = rows_.empty() ? 1 : draft();
  if (rows_.empty()) return;
  const std::size_t rows = rows_.size();
  if (seq > 1) seq = width();
  tokens_.assign(rows * static_cast<std::size_t>(seq), 0);
  real_.resize(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto fed = rows_[r]->drafted();
    real_[r] = static_cast<std::int64_t>(fed.size());
    for (std::int64_t s = 0; s < seq; ++s)  // padding repeats the pending token (the mask hides it)
      tokens_[r * static_cast<std::size_t>(seq) + static_cast<std::size_t>(s)] = fed[s < real_[r] ? s : 0];
  }
  StepOutput out;
  if (rows_.front()->state().cross) {  // an encoder-decoder package: every row has its encoder outputs
    batch_step_cross_.clear();
    for (const auto& row : rows_) batch_step_cross_.push_back(row->state().cross);
    step_.set_cross(batch_step_cross_);
  }
  if (mrope_) {  // 3-D positions: each row's rope delta (mrope_positions.h)
    batch_step_offsets_.clear();
    for (const auto& row : rows_) batch_step_offsets_.push_back(row->state().attention.position_offset(0));
    step_.set_position_offsets(batch_step_offsets_);
  }
  const double started = thread_seconds();
  try {
    out = seq == 1 ? step_.run(tokens_, batch_) : step_.run(tokens_, real_, seq, batch_);
  } catch (...) {  // the batch's run failed: every row ends with that error
    for (std::size_t r = rows_.size(); r-- > 0;) {
      rows_[r]->stop_with_error(std::current_exception());
      leave(r);
    }
    return;
  }
  const double ran = thread_seconds() - started;
  ++counters_.steps;
  if (seq > 1) ++counters_.speculative_runs;
  counters_.decoded_rows += rows;
  counters_.max_batch = std::max<std::int64_t>(counters_.max_batch, static_cast<std::int64_t>(rows));
  kept_.assign(rows, 1);
  sample_rows(out, seq);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto row = static_cast<std::int64_t>(r);
    try {
      if (seq > 1 && rows_[r]->speculation())
        kept_[r] = static_cast<std::int64_t>(rows_[r]->speculation()->verify(out, row, out.run_seconds));
      else if (sample_errors_[r])
        std::rethrow_exception(sample_errors_[r]);
      else
        rows_[r]->publish();
    } catch (...) {
      rows_[r]->stop_with_error(std::current_exception());
    }
  }
  if (seq > 1) {  // roll every row back to the positions it kept; the run's cost includes it
    std::int64_t kept_extra = 0;
    for (std::size_t r = 0; r < rows; ++r) kept_extra += kept_[r] - 1;
    yield_.observe(static_cast<std::int64_t>(rows), expected_extra_, static_cast<double>(kept_extra));
    const double rolling = thread_seconds();
    for (std::size_t r = 0; r < rows; ++r) kept_[r] += batch_.length(static_cast<std::int64_t>(r)) - seq;
    batch_.keep_prefixes(kept_);
    width_cost_.wide(static_cast<std::int64_t>(rows), seq, ran + thread_seconds() - rolling);
  } else {
    width_cost_.plain(static_cast<std::int64_t>(rows), ran);
  }
  for (std::size_t r = rows_.size(); r-- > 0;)
    if (rows_[r]->done()) leave(r);
}

// Parked sequences join once the batch is empty or at their length (in arrival order).
void Engine::unpark() {
  for (auto it = parked_.begin(); it != parked_.end();) {
    if (!rows_.empty() && batch_.length(0) != (*it)->state().cache.length()) {
      ++it;
      continue;
    }
    std::shared_ptr<LiveSequence> ready = std::move(*it);
    it = parked_.erase(it);
    batch_.add_row(std::move(ready->state().cache));
    rows_.push_back(std::move(ready));
  }
}

// Samples every plain row of the step's output (speculative rows verify afterwards, in order) on
// the sampling pool; a row's failure is kept for the serial pass, which streams in row order.
void Engine::sample_rows(StepOutput& out, std::int64_t seq) {
  const std::size_t rows = rows_.size();
  sample_errors_.assign(rows, nullptr);
  samplers_.for_each(rows, [&](std::size_t r) {
    if (seq > 1 && rows_[r]->speculation()) return;
    try {
      rows_[r]->sample(out, static_cast<std::int64_t>(r), out.run_seconds);
    } catch (...) {
      sample_errors_[r] = std::current_exception();
    }
  });
}

void Engine::admit() {
  while (!waiting_.empty() &&
         static_cast<int>(rows_.size() + speculating_.size() + prefilling_.size() + parked_.size() +
                          waiting_.front()->forks().size()) < limits_.max_rows &&
         fits(*waiting_.front())) {
    std::shared_ptr<LiveSequence> sequence = std::move(waiting_.front());
    waiting_.pop_front();
    if (prefix_ && sequence->accepts_cached_prefix() && !sequence->has_state()) {
      if (auto cached = prefix_->lookup(sequence->prompt(), sequence->prompt_media())) sequence->state() = std::move(*cached);
    }
    reservations_.emplace(sequence.get(), kv_budget_.reserve(projected_bytes(*sequence)));
    prefilling_.push_back(std::move(sequence));
  }
}

void Engine::prefill() {
  std::size_t budget = limits_.step_tokens;
  while (budget > 0 && !prefilling_.empty()) {
    std::shared_ptr<LiveSequence>& sequence = prefilling_.front();
    const std::size_t n = std::min(budget, std::max<std::size_t>(sequence->prefill_remaining(), 1));
    try {
      sequence->prefill(n);
      ++counters_.prefill_runs;
      counters_.prefill_tokens += n;
    } catch (...) {
      sequence->stop_with_error(std::current_exception());
    }
    budget -= std::min(budget, n);
    if (sequence->phase() == LiveSequence::Phase::kPrefill) continue;  // more chunks next step
    std::shared_ptr<LiveSequence> ready = std::move(sequence);
    prefilling_.pop_front();
    release_forks(*ready);
    join(std::move(ready));
  }
}

// A sequence whose prefill ended joins the batch, or finishes (its first token ended it, an error).
void Engine::join(std::shared_ptr<LiveSequence> ready) {
  if (ready->phase() == LiveSequence::Phase::kDecode && ready->speculation() &&
      !(batch_verifies_ && ready->speculation()->drafts_from_tokens())) {
    speculating_.push_back(std::move(ready));  // decodes on its own state
  } else if (ready->phase() == LiveSequence::Phase::kDecode) {
    if (equal_lengths_ && !rows_.empty() && batch_.length(0) != ready->state().cache.length()) {
      parked_.push_back(std::move(ready));  // joins when the batch reaches its length or empties
      return;
    }
    batch_.add_row(std::move(ready->state().cache));
    rows_.push_back(std::move(ready));
  } else {
    finish(std::move(ready));
  }
}

// Starts the forks of a sequence whose prefill ended (before its state joins the batch), or ends
// them the way it ended.
void Engine::release_forks(LiveSequence& parent) {
  for (auto& fork : std::exchange(parent.forks(), {})) {
    reservations_.emplace(fork.get(), kv_budget_.reserve(projected_bytes(*fork)));
    if (parent.error()) {
      fork->stop_with_error(parent.error());
    } else if (parent.phase() == LiveSequence::Phase::kPrefill || parent.cancelled()) {
      fork->stop_cancelled();
    } else {
      try {
        fork->start_as_fork(parent);
      } catch (...) {
        fork->stop_with_error(std::current_exception());
      }
    }
    join(std::move(fork));
  }
}

}  // namespace ogai::generate
