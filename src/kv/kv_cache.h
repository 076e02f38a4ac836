// KvCache: the runtime-owned KV state of one batch of sequences, for one decoder.
//
// Holds one buffer per PairSpec, shaped [batch, kv_heads, length-or-capacity, head_dim].
//   - kAppend: the past tensors are exactly `length` long. After a step, commit() takes the
//     present outputs as the next pasts (a move: the runtime copies nothing).
//   - kSharedBuffer: each pair is one buffer of `capacity` positions, bound both as the past
//     input and as the pre-allocated present output, so the graph appends in place. Capacity
//     starts at what the caller reserves and grows geometrically (amortized copies), capped at
//     spec.max_length; it is never pre-allocated to the context limit.
// All rows share one length (padding positions count; the attention mask says which are real).
// rewind() shortens the state (a copy in kAppend mode, free in kSharedBuffer mode); copy()
// snapshots it (an explicit, full copy). Not thread-safe; one KvCache per running batch.
#pragma once

#include <span>
#include <vector>

#include "kv/cache_spec.h"
#include "ort/tensor.h"

namespace ogai::kv {

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
  std::int64_t capacity() const { return capacity_; }  // kSharedBuffer: buffer positions

  // Makes room for `total_length` positions before a step (kSharedBuffer: grows the buffers).
  // Throws ogai::Error if total_length exceeds spec.max_length (when known).
  void reserve(std::int64_t total_length);

  // The past tensors to feed, in spec order (one per pair).
  std::span<const ort::Tensor> pasts() const { return pasts_; }
  // Fills `slots` (one per pair, spec order) with the present outputs' destinations: views of the
  // shared buffers in kSharedBuffer mode; left empty (ORT allocates) in kAppend mode.
  void bind_presents(std::span<ort::Tensor> slots) const;
  // Records a finished step that added `new_tokens` positions; `presents` are the outputs the
  // graph produced into the slots from bind_presents(). Checks their shapes.
  void commit(std::span<ort::Tensor> presents, std::int64_t new_tokens);

  // A read-only view of pair `index` holding exactly length() positions, for another graph that
  // borrows this state (e.g. a speculative drafter): the past tensor itself in kAppend mode, a view
  // of the shared buffer when its prefix is contiguous (batch 1, one KV head), else a copy.
  // Valid until the next step, rewind or growth.
  ort::Tensor borrow(std::size_t index) const;

  // Keeps only the first `length` positions (speculative rollback, chat edits).
  void rewind(std::int64_t length);
  // A deep copy: snapshot for rollback, or fork for a branching request.
  KvCache copy() const;

 private:
  KvCache() = default;
  ort::Shape past_shape(const PairSpec& pair, std::int64_t positions) const;
  void grow(std::int64_t capacity);

  const CacheSpec* spec_ = nullptr;
  std::int64_t batch_ = 0;
  std::int64_t length_ = 0;
  std::int64_t capacity_ = 0;
  std::vector<ort::Tensor> pasts_;  // per pair: [batch, kv_heads, length or capacity, head_dim]
};

}  // namespace ogai::kv
