// IEEE 754 half precision (float16) and bfloat16 to float32 conversion, for reading model outputs.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "base/dtype.h"

namespace ogai {

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf / nan
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;  // zero
  } else {        // subnormal: normalize
    exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline float bfloat16_to_float(std::uint16_t b) {
  std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline void half_to_float(std::span<const std::uint16_t> in, std::span<float> out) {
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = half_to_float(in[i]);
}

// float32 -> float16, rounding to nearest even; overflow becomes infinity, NaN stays NaN.
std::uint16_t float_to_half(float f);

// float32 -> bfloat16, rounding to nearest even.
std::uint16_t float_to_bfloat16(float f);

// Copies `count` elements between float32 / float16 / bfloat16 buffers, converting as needed.
// Throws ogai::Error for any other element type.
void convert_floats(const void* src, DataType src_type, void* dst, DataType dst_type, std::size_t count);

}  // namespace ogai
