// Engine: steps a changing set of live sequences over one decoder (iteration-level scheduling).
// Each step():
//   1. ends the sequences whose caller cancelled them (waiting, prefilling or decoding), freeing
//      their row and KV at once;
//   2. decodes: one batched ONNX Runtime run feeds every decoding row (plain and speculative) and
//      each row samples, streams and checks its stop rules on its own; rows that finish leave the
//      batch. When a speculative row proposed tokens (LiveSequence::Speculative::draft), the run is a
//      multi-token step as wide as the longest proposal + 1: speculative rows feed their pending
//      token and proposal, plain rows their one token, each row's padding hidden by the mask
//      (batch_step.h); then each row verifies (Speculative::verify) and the batch rolls every
//      row back to the positions it kept (kv::BatchCache::keep_prefixes). The run is only as
//      wide as pays for the whole batch (speculation_width.h: greedy rows' proposals trimmed,
//      the cost of each width measured from the runs). Plain rows share the
//      speculative rows' run rather than a second run of their own: on stories260k (CPU) a
//      run's fixed cost outweighs the padded positions (docs/speculative.md has the figures).
//      Only where the graph allows it (verifies_in_batch: a left-padded append cache with a
//      mask; a drafter that reads tokens only);
//   3. steps each other speculative sequence (recurrent state, shared buffers, static caches, the
//      assistant drafter) with its own verification run on its own state (speculative.h): one
//      run per such sequence per step, each emitting 1..K+1 tokens;
//   4. prefills under a token budget (limits.step_tokens prompt tokens per step, in FIFO order,
//      each sequence on its own state); a sequence whose prompt is complete samples its first
//      token and joins the batch for the next step.
// Decode comes first, so time between tokens stays bounded while long prompts arrive (chunked
// prefill). Prefill chunks are separate runs rather than padding every decode row to the chunk
// length: the decoder's [batch, sequence] ports give all rows of one run the same length.
// A sequence is admitted (starts prefilling) while fewer than limits.max_rows sequences are
// prefilling or decoding (batched or speculative) and, with a KV budget, while the KV it may grow to fits in it.
// A decoder without an attention-mask input (Whisper's) cannot hide a shorter row's left padding:
// its rows share a run only at equal lengths. A sequence whose prefill ended at another length than
// the batch's rows waits (parked, its state its own) until the batch empties, then joins.
// Finished sequences (done, cancelled or failed) are handed back through take_finished(), with
// their state extracted from the batch when keep_states is set (a Context, the prefix cache).
// Not thread-safe: one thread calls everything (ogai::Engine runs it on its own thread).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/work_pool.h"
#include "generate/batch_step.h"
#include "generate/kv_reservation.h"
#include "generate/live_sequence.h"
#include "generate/prefix_cache.h"
#include "generate/speculation_width.h"
#include "generate/step_engine.h"
#include "kv/batch_cache.h"

namespace ogai::generate {

class Engine : public StepEngine {
 public:
  // `prefix` (may be null) is consulted when a sequence is admitted and fed finished states;
  // ignored for a package whose groups do not all say reuse.prefix_reusable (kv::CacheSpec).
  Engine(const SequenceModel& model, EngineLimits limits, PrefixCache* prefix = nullptr);

  void add(std::shared_ptr<LiveSequence> sequence);
  void add_generation(std::shared_ptr<Generation> generation) override;
  void set_kv_budget(std::size_t bytes) override { limits_.kv_bytes = bytes; }
  void step() override;
  bool idle() const override {
    return waiting_.empty() && prefilling_.empty() && rows_.empty() && speculating_.empty() && parked_.empty();
  }

  std::vector<std::shared_ptr<LiveSequence>> take_finished();
  std::vector<std::shared_ptr<Generation>> take_done() override;

  // Sequences decoding: batched rows and speculative sequences.
  int decoding() const override { return static_cast<int>(rows_.size() + speculating_.size() + parked_.size()); }
  int prefilling() const override { return static_cast<int>(prefilling_.size()); }
  int waiting() const override { return static_cast<int>(waiting_.size()); }
  // KV held by decoding sequences: the batch and the speculative sequences' own states.
  std::size_t kv_bytes() const override;
  const EngineCounters& counters() const override { return counters_; }
  // KV bytes one position of one sequence takes (append pairs), from the graph's geometry.
  std::size_t bytes_per_position() const override { return bytes_per_position_; }

 private:
  void drop_cancelled();
  void decode();
  std::int64_t draft();
  std::int64_t width();
  bool verifies_in_batch(const DecoderSpec& spec) const;
  void speculate();
  void retire(std::size_t speculating);
  void prefill();
  void admit();
  void sample_rows(StepOutput& out, std::int64_t seq);
  bool fits(const LiveSequence& sequence) const;
  std::size_t projected_bytes(const LiveSequence& sequence) const;
  void leave(std::size_t row);
  void join(std::shared_ptr<LiveSequence> ready);
  void unpark();
  void release_forks(LiveSequence& parent);
  void finish(std::shared_ptr<LiveSequence> sequence);

  EngineLimits limits_;
  PrefixCache* prefix_;
  kv::BatchCache batch_;
  BatchStep step_;
  std::vector<std::shared_ptr<LiveSequence>> rows_;         // row r of batch_ is rows_[r]
  std::vector<std::shared_ptr<LiveSequence>> speculating_;  // speculative, verifying on their own states
  std::deque<std::shared_ptr<LiveSequence>> prefilling_;
  std::deque<std::shared_ptr<LiveSequence>> waiting_;
  std::deque<std::shared_ptr<LiveSequence>> parked_;  // prefilled, waiting for rows of their length
  bool mrope_ = false;          // the decoder takes 3-D positions (DecoderSpec::mrope)
  bool equal_lengths_ = false;  // rows share a run only at equal lengths (no mask hides padding)
  std::vector<std::shared_ptr<LiveSequence>> finished_;
  std::vector<TokenId> tokens_;     // [rows, seq] scratch
  std::vector<std::int64_t> real_;  // [rows] scratch: real tokens per row of a multi-token step
  std::vector<std::int64_t> kept_;  // [rows] scratch: positions each row keeps after the step
  std::vector<std::exception_ptr> sample_errors_;  // [rows] scratch: a row's sampling failure
  WorkPool samplers_;               // samples a decode step's plain rows in parallel
  std::vector<RowDraft> drafts_;    // [rows] scratch for width()
  std::vector<CrossStatePtr> batch_step_cross_;  // [rows]: encoder-decoder rows' encoder outputs
  std::vector<std::int64_t> batch_step_offsets_;  // [rows]: 3-D positions' rope deltas
  WidthCost width_cost_;
  YieldCalibration yield_;       // how far the rows' acceptance averages come true, per row count
  double expected_extra_ = 0;    // proposed tokens width() expects the chosen run to keep
  bool batch_verifies_ = false;  // speculative rows verify in the shared run (verifies_in_batch)
  std::size_t bytes_per_position_ = 0;
  std::size_t fixed_bytes_ = 0;  // per sequence: static buffers and recurrent state
  KvBudget kv_budget_;           // projected KV of the admitted sequences
  std::unordered_map<const LiveSequence*, KvBudget::Reservation> reservations_;  // after kv_budget_
  EngineCounters counters_;
};

}  // namespace ogai::generate
