// Block-wise 4-bit round-to-nearest quantization in the layout of ONNX Runtime's com.microsoft
// MatMulNBits (and GatherBlockQuantized with uint8 data, which uses the same convention).
//
// A quantized row of K values is split into ceil(K / block_size) blocks (the last one padded with
// zeros). Each block has a float scale and a 4-bit zero point; a value dequantizes as
// (q - zero_point) * scale. Codes are packed two per byte, the even element in the low nibble.
// Zero points are packed the same way per row: ceil(blocks / 2) bytes, block b in byte b / 2.
//   symmetric:  scale = v / -8 for the block's value v of largest magnitude, zero point 8 (the
//               MatMulNBits default, so no zero_points input is written); codes span [-8, 7] *
//               scale.
//   asymmetric: the range [min(0, lo), max(0, hi)] in 15 steps, zero point round(-min / scale).
// Rounding is to nearest, ties to even (q = rint(v * (1 / scale)) + zero point, clamped to 0..15),
// computed in float32 so a NumPy float32 reference reproduces it bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/dtype.h"

namespace ogai::quantize {

struct BlockQuantOptions {
  int block_size = 128;  // a power of two, 16..128 here (128: docs/quantize.md, "Measurements and the default")
  bool symmetric = true;
};

// A [rows, K] matrix quantized row by row (for MatMulNBits the rows are the weight's N columns).
struct QuantizedRows {
  std::int64_t rows = 0, cols = 0, blocks = 0;  // blocks per row = ceil(cols / block_size)
  std::vector<std::uint8_t> codes;              // rows * blocks * block_size / 2
  std::vector<float> scales;                    // rows * blocks
  std::vector<std::uint8_t> zero_points;        // rows * ceil(blocks / 2); empty when symmetric
  std::int64_t zero_point_bytes_per_row() const { return (blocks + 1) / 2; }
};

// Quantizes one row of `cols` floats into `codes` (blocks * block_size / 2 bytes), `scales`
// (blocks floats) and, when asymmetric, `zero_points` (ceil(blocks / 2) bytes).
void quantize_row(const float* values, std::int64_t cols, const BlockQuantOptions& options,
                  std::uint8_t* codes, float* scales, std::uint8_t* zero_points);

// Quantizes the rows of a row-major [rows, cols] matrix of float32 or float16 elements (`data`
// may be unaligned): an embedding table, or a tied lm-head's [vocab, hidden] table.
QuantizedRows quantize_rows(const void* data, DataType dtype, std::int64_t rows, std::int64_t cols,
                            const BlockQuantOptions& options);

// Quantizes a MatMul weight B of shape [K, N] (row-major, float32 or float16) along K: row n of
// the result is column n of B, as MatMulNBits stores it ([N, blocks, block_size / 2]).
QuantizedRows quantize_columns(const void* data, DataType dtype, std::int64_t k, std::int64_t n,
                               const BlockQuantOptions& options);

}  // namespace ogai::quantize
