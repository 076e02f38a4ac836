// BatchCache: the state of the rows an engine decodes together, one new token per row per step.
// Each row is one sequence with its own length (positions held); rows join (add_row, from the
// sequence's own batch-1 KvCache after its prefill) and leave (take_row / remove_row) between
// steps. Row indices are dense: removing row r moves the last row into r.
//
// Layout per pair (rows = rows(), len(r) = length(r)):
//   append pairs, kAppend storage: [rows, kv_heads, width, head_dim], width = the longest row;
//       row r's positions are the last len(r) of its width (left padding of width - len(r); the
//       mask marks them), or its first len(r) with spec.prefix_rows (explicit-length attention).
//       The graph's present (width + 1) becomes the next past by move. Joining or leaving re-lays the
//       tensor (one copy of the batch's KV, the order of what ONNX Runtime copies each step to
//       append), shrinking the width to the longest row.
//   append pairs, kSharedBuffer storage: [row_capacity, kv_heads, capacity, head_dim] buffers;
//       row r's positions are [0, len(r)); the first rows() rows are fed as one view and the
//       graph writes the new position in place. Row capacity and capacity grow geometrically;
//       a leaving row costs one row copy (the last row moves into its place), a joining one a
//       copy of its own KV.
//   indexed_scatter pairs: [rows, kv_heads, pair.capacity, head_dim]; row r's valid prefix is
//       len(r) (the engine feeds write index len(r)); the present replaces the buffer.
//   replace pairs: [rows, ...state_dims]; the present replaces the state.
// Multi-token steps (speculative verification, generate/batch_step.h): left-padded caches only;
// every row takes `added` new positions at the end of its width (the mask hides a row's padded
// ones), then keep_prefixes() rolls each row back to the positions it kept, re-laying the rows
// right-aligned again: on the host in place, inside the buffer the run just wrote (a memmove of
// the kept KV per row and head, no allocation: kv::keep_right_aligned); on a device one copy of
// the kept KV into a new tensor (the order of the graph's own concat per step).
// Memory: rows x the longest row (append) or rows x capacity (buffers): it grows with the live
// rows and their lengths, never with a row count or context fixed in advance. Sliding-window
// groups are no exception: each row keeps all its positions (kv_cache.h says why).
// Where: every tensor lives in `memory` (ort::Memory, memory.h): the host, or the device the
// decoder runs on, so that decode steps never move KV across (the graph's presents are bound
// there, io_binding.h). Sequences' own KvCaches stay on the host: joining copies the row's KV to
// the batch's memory once (a move when both are the host and the row is the first), leaving
// copies it back; on a device every re-lay and growth is a device-to-device copy.
// Not thread-safe; one BatchCache per engine.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "kv/kv_cache.h"
#include "ort/memory.h"

namespace ogai::kv {

class BatchCache {
 public:
  explicit BatchCache(const CacheSpec& spec, ort::Memory memory = ort::Memory::host());
  BatchCache(const BatchCache&) = delete;
  BatchCache& operator=(const BatchCache&) = delete;

  const CacheSpec& spec() const { return *spec_; }
  // Where the state lives (present outputs of a step are bound there).
  ort::Location location() const { return memory_.location(); }
  std::int64_t rows() const { return static_cast<std::int64_t>(lengths_.size()); }
  std::int64_t length(std::int64_t row) const { return lengths_[static_cast<std::size_t>(row)]; }
  std::int64_t longest() const;
  // Whether append pairs are left-padded rows (kAppend storage with at least one append pair,
  // without spec.prefix_rows); otherwise every row's positions are a prefix of its buffer.
  bool left_padded() const { return left_padded_; }
  // Positions per row of the kAppend-storage pasts (= the longest row).
  std::int64_t width() const { return width_; }

  // Adds a sequence's batch-1 cache as row rows(). Its tensors are taken without a copy when the
  // batch is empty and the batch lives on the host (one-sequence decoding costs nothing), copied
  // into the batch otherwise.
  void add_row(KvCache&& solo);
  // Removes row `row` and returns its state as a batch-1 KvCache of exactly length(row) positions
  // on the host (a copy of the row, or its tensors when it is the only row of a host batch).
  KvCache take_row(std::int64_t row);
  // Removes row `row` without keeping its state.
  void remove_row(std::int64_t row);

  // Why row `row` cannot take one more position (a static cache's capacity, the context limit),
  // or empty when it can.
  std::string room_error(std::int64_t row) const;
  // Makes room for one more position in every row (grows shared buffers).
  void reserve_step();
  // The pasts to feed, spec order (views of the first rows() rows for shared buffers).
  std::span<const ort::Tensor* const> pasts();
  // Fills `slots` with the present outputs' destinations (views of shared buffers; empty
  // otherwise, ORT allocates).
  void bind_presents(std::span<ort::Tensor> slots);
  // Records a finished step that added `added` positions to every row (more than one: left-padded
  // caches only); checks the presents' shapes.
  void commit(std::span<ort::Tensor> presents, std::int64_t added = 1);
  // Per-row rollback: row r keeps its first keep[r] positions (1 <= keep[r] <= length(r)). Re-lays
  // the kAppend-storage append pairs when a row drops positions (in place on the host, the tensor
  // then a narrowed view of its old buffer: bytes() counts the view); shared buffers and indexed pairs
  // only record the lengths. Replace (recurrent) pairs cannot rewind: ogai::Error (kInternal)
  // when such a cache drops a position.
  void keep_prefixes(std::span<const std::int64_t> keep);
  // Whether multi-token steps are possible: left-padded rows and append pairs only.
  bool takes_multi_token_steps() const;

  // Changes whenever a row joins or leaves (feeds derived from the rows can be kept until then).
  std::uint64_t membership() const { return membership_; }

  // Bytes of state held (buffers at their capacity).
  std::size_t bytes() const;

 private:
  bool shared(const PairSpec& pair) const;
  ort::Shape row_shape(const PairSpec& pair, std::int64_t rows, std::int64_t positions) const;
  void adopt(KvCache&& solo);
  void relay(std::span<const std::int64_t> order, const KvCache* joining, std::int64_t width);
  void grow_shared(std::int64_t row_capacity, std::int64_t capacity);
  void rebuild_views();
  KvCache extract(std::int64_t row) const;

  const CacheSpec* spec_;
  ort::Memory memory_;
  bool left_padded_ = false;
  std::vector<std::int64_t> lengths_;  // per row
  std::uint64_t membership_ = 0;
  std::int64_t width_ = 0;                // kAppend-storage append pairs: positions per row
  std::int64_t capacity_ = 0;             // kSharedBuffer: positions per row of the buffers
  std::int64_t row_capacity_ = 0;         // kSharedBuffer: rows the buffers hold
  std::vector<ort::Tensor> store_;        // per pair, layout above
  std::vector<ort::Tensor> views_;        // per pair: shared buffers' views of the first rows() rows
  std::vector<const ort::Tensor*> feed_;  // per pair: what pasts() returns
};

}  // namespace ogai::kv
