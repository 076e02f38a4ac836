// Tensor element types, numbered as ONNX's TensorProto.DataType (and ONNX Runtime's
// ONNXTensorElementDataType, which uses the same numbers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ogai {

enum class DataType : std::int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBfloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
};

// Canonical lower-case name: "float32", "float16", "bfloat16", "int64", "bool", "float8e4m3fn", ...
// Unknown numbers print as "dtype(<n>)".
std::string_view dtype_name(DataType type);

// Size of one element in bytes; 0 for string, sub-byte and undefined types.
std::size_t dtype_size(DataType type);

// The DataType for an ONNX enum number, or nullopt when the number is not a known type.
std::optional<DataType> dtype_from_onnx(std::int32_t value);

bool is_float_type(DataType type);    // float16/32/64, bfloat16, float8 variants
bool is_integer_type(DataType type);  // signed and unsigned ints (not bool)

}  // namespace ogai
