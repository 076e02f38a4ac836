// Copies between batch rows of state tensors: how the engine moves one sequence's state into and
// out of the batch it decodes in. The only other place besides sequence_copy.h that moves KV bytes.
// Either tensor may be on the host or a device: the bytes move through ort::copy_ranges (a
// memcpy per (row, head) range on the host, one ONNX Runtime CopyTensors call otherwise; memory.h).
#pragma once

#include <cstdint>
#include <span>

#include "ort/tensor.h"

namespace ogai::kv {

// Copies `positions` positions of row `src_row` of `src` [B, H, S, D], starting at position
// `src_at`, into row `dst_row` of `dst` [B', H, S', D] starting at position `dst_at`. Same dtype,
// H and D; the ranges must lie inside both tensors (ogai::Error kInternal otherwise). Combined
// caches [2, B, H, S, D] copy both planes of the row.
void copy_row_positions(const ort::Tensor& src, std::int64_t src_row, std::int64_t src_at, ort::Tensor& dst,
                        std::int64_t dst_row, std::int64_t dst_at, std::int64_t positions);

// Zeroes `positions` positions of row `row` of a host tensor [B, H, S, D] (or [2, B, H, S, D]) from
// position `at`: the padding of a re-laid row. ogai::Error kInternal outside the tensor or off the host.
void zero_row_positions(ort::Tensor& t, std::int64_t row, std::int64_t at, std::int64_t positions);

// Rolls every row of a host tensor [B, H, W, D] (or [2, B, H, W, D]) back in place: row r holds
// lengths[r] positions right-aligned in its W (left padding before them) and keeps the first
// keep[r] of them (keep[r] <= lengths[r]), right-aligned in `width` positions (width >= every
// keep[r], <= W), its padding zeroed. Returns the tensor [B, H, width, D] over the same buffer
// (ort::Tensor::narrowed): no allocation, one forward memmove per (plane, row, head) of the kept
// bytes, which the run has just written (cache-hot). Each block's destination starts at or after
// the end of the blocks before it and ends before the source of the blocks after it, so moving
// them in order never overwrites bytes still to move. ogai::Error kInternal off the host or for
// out-of-range lengths.
ort::Tensor keep_right_aligned(ort::Tensor&& t, std::span<const std::int64_t> lengths,
                               std::span<const std::int64_t> keep, std::int64_t width);

// Copies batch row `src_row` of `src` [B, ...] whole into row `dst_row` of `dst` [B', ...] (same
// dtype and trailing dims).
void copy_row(const ort::Tensor& src, std::int64_t src_row, ort::Tensor& dst, std::int64_t dst_row);

}  // namespace ogai::kv
