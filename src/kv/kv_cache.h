// KvCache: the runtime-owned state of one batch of sequences, for one decoder.
//
// Holds one buffer per PairSpec:
//   - append pairs, [batch, kv_heads, positions, head_dim]:
//       kAppend storage: the past is exactly `length` long; after a step commit() takes the present
//       output as the next past (a move: the runtime copies nothing).
//       kSharedBuffer storage: one buffer of `capacity` positions bound both as the past input and
//       as the pre-allocated present output, so the graph appends in place. Capacity starts at
//       what the caller reserves and grows geometrically (amortized copies), capped at
//       spec.max_length; it is never pre-allocated to the context limit.
//   - indexed_scatter pairs, [batch, kv_heads, capacity, head_dim]: a fixed buffer the graph
//       writes at the engine's write indices; its present output becomes the buffer. reserve()
//       refuses positions past the capacity before the step runs.
//   - replace pairs, [batch, ...state_dims]: recurrent state, zeros at first, replaced by each
//       step's present. It cannot be rewound to an earlier position (only reset to 0, or restored
//       from a copy()).
// All rows share one length (padding positions count; the attention mask says which are real).
// Every group holds every position from 0, sliding-window groups included: nothing is evicted,
// whatever the group's evictable_prefix says, because a v1 graph's sliding layers read their keys
// from the start of the buffer up to the one attention mask's length and apply the window
// themselves (tests/fixtures/sliding_past_test.cc; docs/architecture.md, "Sliding windows").
// A sliding group's memory therefore grows with the whole length, like a full group's.
// rewind() shortens the state (a copy for kAppend storage, free for buffers); copy() snapshots it
// (an explicit, full copy). Not thread-safe; one KvCache per running batch.
#pragma once

#include <span>
#include <vector>

#include "kv/cache_spec.h"
#include "ort/tensor.h"

namespace ogai::kv {

// Throws ogai::Error (kInvalidPackage, naming the present port) unless `present` is `want` in the
// pair's dtype: what a graph returned for a state pair, checked before it is committed.
void check_present(const PairSpec& pair, const ort::Tensor& present, const ort::Shape& want);

class KvCache {
 public:
  KvCache(const CacheSpec& spec, std::int64_t batch);
  KvCache(KvCache&&) noexcept = default;
  KvCache& operator=(KvCache&&) noexcept = default;
  KvCache(const KvCache&) = delete;
  KvCache& operator=(const KvCache&) = delete;

  const CacheSpec& spec() const { return *spec_; }
  std::int64_t batch() const { return batch_; }
  std::int64_t length() const { return length_; }      // positions held
  std::int64_t capacity() const { return capacity_; }  // kSharedBuffer append pairs: buffer positions

  // Makes room for `total_length` positions before a step (grows shared buffers). Throws
  // ogai::Error if total_length exceeds spec.max_length or an indexed_scatter buffer's capacity.
  void reserve(std::int64_t total_length);

  // The past tensors to feed, in spec order (one per pair).
  std::span<const ort::Tensor> pasts() const { return pasts_; }
  // Fills `slots` (one per pair, spec order) with the present outputs' destinations: views of the
  // shared buffers for kSharedBuffer append pairs; left empty (ORT allocates) otherwise.
  void bind_presents(std::span<ort::Tensor> slots) const;
  // Records a finished step that added `new_tokens` positions; `presents` are the outputs the
  // graph produced into the slots from bind_presents(). Checks their shapes.
  void commit(std::span<ort::Tensor> presents, std::int64_t new_tokens);

  // Whether rewind(length) is possible (replace pairs only rewind to 0 or to length()).
  bool can_rewind(std::int64_t length) const;
  // Whether every earlier position can be rewound to (false with recurrent replace state).
  bool rewinds_freely() const { return !has_state_pairs_; }
  // Keeps only the first `length` positions (speculative rollback, chat edits).
  void rewind(std::int64_t length);
  // Bytes held by the state tensors (buffers at their capacity).
  std::size_t bytes() const;
  // A deep copy: snapshot for rollback, or fork for a branching request.
  KvCache copy() const;

  // A read-only view of pair `index` holding exactly length() positions (the state itself for
  // replace pairs), for another graph that borrows this state (e.g. a speculative drafter): the
  // past tensor itself for kAppend storage, a view of a buffer when its prefix is contiguous
  // (batch 1, one KV head), else a copy. Valid until the next step, rewind or growth.
  ort::Tensor borrow(std::size_t index) const;

 private:
  friend class BatchCache;  // moves rows in and out of a batch
  KvCache() = default;
  ort::Shape shape_of(const PairSpec& pair, std::int64_t positions) const;
  ort::Shape initial_shape(const PairSpec& pair) const;
  ort::Shape expected_present(const PairSpec& pair, std::int64_t new_tokens) const;
  bool shared(const PairSpec& pair) const;
  void grow(std::int64_t capacity);
  void reset_states();

  const CacheSpec* spec_ = nullptr;
  std::int64_t batch_ = 0;
  std::int64_t length_ = 0;
  std::int64_t capacity_ = 0;
  bool has_state_pairs_ = false;
  std::vector<ort::Tensor> pasts_;  // per pair, shapes as described above
};

}  // namespace ogai::kv
