// Copies along the sequence axis of [batch, heads, seq, head_dim] tensors: the one place the
// state service moves KV bytes (rewind in append mode, buffer growth, snapshots).
#pragma once

#include "ort/tensor.h"

namespace ogai::kv {

// Copies positions [0, positions) of every (batch, head) row of `src` into `dst`. Both are
// [B, H, *, D] (or combined [2, B, H, *, D]) of the same dtype and other dims; both sequence
// extents must be >= positions.
void copy_sequence_prefix(const ort::Tensor& src, ort::Tensor& dst, std::int64_t positions);

}  // namespace ogai::kv
