// Block-wise 4-bit or 8-bit round-to-nearest quantization in the layout of ONNX Runtime's
// com.microsoft MatMulNBits (and GatherBlockQuantized with uint8 data, which uses the same
// convention).
//
// A quantized row of K values is split into ceil(K / block_size) blocks (the last one padded with
// zeros). Each block has a float scale and a zero point of `bits` bits; a value dequantizes as
// (q - zero_point) * scale. With M = 2^(bits-1) (8 or 128) and Q = 2^bits - 1 (15 or 255):
//   symmetric:  scale = v / -M for the block's value v of largest magnitude, zero point M (the
//               MatMulNBits / GatherBlockQuantized default, so no zero_points input is written);
//               codes span [-M, M - 1] * scale.
//   asymmetric: the range [min(0, lo), max(0, hi)] in Q steps, zero point round(-min / scale).
// 4 bits: codes packed two per byte, the even element in the low nibble; zero points packed the
// same way per row (ceil(blocks / 2) bytes, block b in byte b / 2). 8 bits: one code and one zero
// point per byte.
// Rounding is to nearest, ties to even (q = rint(v * (1 / scale)) + zero point, clamped to 0..Q),
// computed in float32 so a NumPy float32 reference reproduces it bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/dtype.h"

namespace ogai::quantize {

struct BlockQuantOptions {
  int block_size = 32;  // a power of two, 16..128 here (32: docs/quantize.md, "Measurements and the default")
  bool symmetric = true;
  int bits = 4;  // 4 or 8
  std::int64_t block_bytes() const { return block_size * bits / 8; }
};

// A [rows, K] matrix quantized row by row (for MatMulNBits the rows are the weight's N columns).
struct QuantizedRows {
  std::int64_t rows = 0, cols = 0, blocks = 0;  // blocks per row = ceil(cols / block_size)
  int bits = 4;
  std::vector<std::uint8_t> codes;              // rows * blocks * block_size * bits / 8
  std::vector<float> scales;                    // rows * blocks
  std::vector<std::uint8_t> zero_points;        // rows * zero_point_bytes_per_row(); empty when symmetric
  std::int64_t zero_point_bytes_per_row() const { return bits == 8 ? blocks : (blocks + 1) / 2; }
};

// Quantizes one row of `cols` floats into `codes` (blocks * block_bytes() bytes), `scales`
// (blocks floats) and, when asymmetric, `zero_points` (ceil(blocks / 2) bytes at 4 bits, blocks
// bytes at 8).
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
