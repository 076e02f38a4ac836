#include "quantize/block_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/error.h"
#include "base/half.h"

namespace ogai::quantize {
namespace {

int max_code(const BlockQuantOptions& o) { return (1 << o.bits) - 1; }
int middle_code(const BlockQuantOptions& o) { return 1 << (o.bits - 1); }

std::uint8_t code_of(float value, float inverse_scale, int zero_point, int max) {
  const int q = static_cast<int>(std::nearbyint(value * inverse_scale)) + zero_point;
  return static_cast<std::uint8_t>(std::clamp(q, 0, max));
}

// One block of `count` (<= block_size) values; the rest of the block is zero padding.
void quantize_block(const float* values, std::int64_t count, const BlockQuantOptions& options,
                    std::uint8_t* codes, float& scale, int& zero_point) {
  const int max = max_code(options), middle = middle_code(options);
  if (options.symmetric) {
    float extreme = 0.0f;
    for (std::int64_t i = 0; i < count; ++i)
      if (std::fabs(values[i]) > std::fabs(extreme)) extreme = values[i];
    scale = extreme / -static_cast<float>(middle);
    zero_point = middle;
  } else {
    float lo = 0.0f, hi = 0.0f;
    for (std::int64_t i = 0; i < count; ++i) {
      lo = std::min(lo, values[i]);
      hi = std::max(hi, values[i]);
    }
    scale = (hi - lo) / static_cast<float>(max);
    zero_point =
        scale == 0.0f ? middle : std::clamp(static_cast<int>(std::nearbyint(-lo / scale)), 0, max);
  }
  const float inverse = scale == 0.0f ? 0.0f : 1.0f / scale;
  std::memset(codes, 0, static_cast<std::size_t>(options.block_bytes()));
  for (std::int64_t i = 0; i < options.block_size; ++i) {
    const std::uint8_t q = code_of(i < count ? values[i] : 0.0f, inverse, zero_point, max);
    if (options.bits == 8)
      codes[i] = q;
    else
      codes[i / 2] |= static_cast<std::uint8_t>((i % 2) ? q << 4 : q);
  }
}

QuantizedRows empty_result(std::int64_t rows, std::int64_t cols, const BlockQuantOptions& options) {
  if (options.block_size < 16 || (options.block_size & (options.block_size - 1)) != 0)
    fail(ErrorCode::kInvalidArgument, "--block-size", "{} is not a power of two >= 16",
         options.block_size);
  if (options.bits != 4 && options.bits != 8)
    fail(ErrorCode::kInvalidArgument, "--bits", "{} bits per weight: expected 4 or 8", options.bits);
  QuantizedRows out;
  out.bits = options.bits;
  out.rows = rows;
  out.cols = cols;
  out.blocks = (cols + options.block_size - 1) / options.block_size;
  out.codes.resize(static_cast<std::size_t>(rows * out.blocks * options.block_bytes()));
  out.scales.resize(static_cast<std::size_t>(rows * out.blocks));
  if (!options.symmetric)
    out.zero_points.resize(static_cast<std::size_t>(rows * out.zero_point_bytes_per_row()));
  return out;
}

void quantize_into(QuantizedRows& out, std::int64_t row, const float* values,
                   const BlockQuantOptions& options) {
  const std::int64_t row_codes = out.blocks * options.block_bytes();
  quantize_row(
      values, out.cols, options, out.codes.data() + row * row_codes,
      out.scales.data() + row * out.blocks,
      options.symmetric ? nullptr : out.zero_points.data() + row * out.zero_point_bytes_per_row());
}

float element(const std::uint8_t* bytes, DataType dtype, std::size_t index) {
  if (dtype == DataType::kFloat16) {
    std::uint16_t h;
    std::memcpy(&h, bytes + index * 2, 2);
    return half_to_float(h);
  }
  float f;
  std::memcpy(&f, bytes + index * 4, 4);
  return f;
}

void check_dtype(DataType dtype) {
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat16)
    fail(ErrorCode::kUnsupported, "", "only float32 and float16 weights are quantized, not {}",
         dtype_name(dtype));
}

}  // namespace

void quantize_row(const float* values, std::int64_t cols, const BlockQuantOptions& options,
                  std::uint8_t* codes, float* scales, std::uint8_t* zero_points) {
  const std::int64_t blocks = (cols + options.block_size - 1) / options.block_size;
  const bool wide = options.bits == 8;
  if (zero_points) std::memset(zero_points, 0, static_cast<std::size_t>(wide ? blocks : (blocks + 1) / 2));
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t begin = b * options.block_size;
    int zero_point = middle_code(options);
    quantize_block(values + begin, std::min<std::int64_t>(options.block_size, cols - begin),
                   options, codes + b * options.block_bytes(), scales[b], zero_point);
    if (zero_points && wide)
      zero_points[b] = static_cast<std::uint8_t>(zero_point);
    else if (zero_points)
      zero_points[b / 2] |= static_cast<std::uint8_t>((b % 2) ? zero_point << 4 : zero_point);
  }
}

QuantizedRows quantize_rows(const void* data, DataType dtype, std::int64_t rows, std::int64_t cols,
                            const BlockQuantOptions& options) {
  check_dtype(dtype);
  QuantizedRows out = empty_result(rows, cols, options);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  std::vector<float> row(static_cast<std::size_t>(cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c)
      row[c] = element(bytes, dtype, static_cast<std::size_t>(r * cols + c));
    quantize_into(out, r, row.data(), options);
  }
  return out;
}

QuantizedRows quantize_columns(const void* data, DataType dtype, std::int64_t k, std::int64_t n,
                               const BlockQuantOptions& options) {
  check_dtype(dtype);
  QuantizedRows out = empty_result(n, k, options);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  constexpr std::int64_t kPanel = 64;  // columns transposed at a time, so B is read row-wise
  std::vector<float> panel(static_cast<std::size_t>(kPanel * k));
  for (std::int64_t n0 = 0; n0 < n; n0 += kPanel) {
    const std::int64_t width = std::min(kPanel, n - n0);
    for (std::int64_t row = 0; row < k; ++row)
      for (std::int64_t j = 0; j < width; ++j)
        panel[j * k + row] = element(bytes, dtype, static_cast<std::size_t>(row * n + n0 + j));
    for (std::int64_t j = 0; j < width; ++j)
      quantize_into(out, n0 + j, panel.data() + j * k, options);
  }
  return out;
}

}  // namespace ogai::quantize
