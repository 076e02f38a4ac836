#include "base/half.h"

#include "base/error.h"

namespace ogai {

std::uint16_t float_to_half(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u);  // nan / inf
  if (abs >= 0x477ff000u) return sign | 0x7c00u;                                   // rounds past 65504
  if (abs < 0x38800000u) {                                                          // subnormal or zero
    if (abs < 0x33000000u) return sign;                                             // below half the smallest
    const std::uint32_t exponent = abs >> 23;
    const std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - exponent;  // 14..24
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t rounded = abs - 0x38000000u;  // rebias exponent 127 -> 15
  rounded += 0xfffu + ((rounded >> 13) & 1u);   // round to nearest even on the 13 dropped bits
  return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // nan
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

void convert_floats(const void* src, DataType src_type, void* dst, DataType dst_type, std::size_t count) {
  auto read = [&](std::size_t i) -> float {
    switch (src_type) {
      case DataType::kFloat32: return static_cast<const float*>(src)[i];
      case DataType::kFloat16: return half_to_float(static_cast<const std::uint16_t*>(src)[i]);
      case DataType::kBfloat16: return bfloat16_to_float(static_cast<const std::uint16_t*>(src)[i]);
      default: fail(ErrorCode::kUnsupported, "convert", "cannot read {} as floats", dtype_name(src_type));
    }
  };
  if (src_type == dst_type && dtype_size(src_type) > 0) {
    std::memcpy(dst, src, count * dtype_size(src_type));
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const float v = read(i);
    switch (dst_type) {
      case DataType::kFloat32: static_cast<float*>(dst)[i] = v; break;
      case DataType::kFloat16: static_cast<std::uint16_t*>(dst)[i] = float_to_half(v); break;
      case DataType::kBfloat16: static_cast<std::uint16_t*>(dst)[i] = float_to_bfloat16(v); break;
      default: fail(ErrorCode::kUnsupported, "convert", "cannot write floats as {}", dtype_name(dst_type));
    }
  }
}

}  // namespace ogai
