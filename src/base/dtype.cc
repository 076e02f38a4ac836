#include "base/dtype.h"

namespace ogai {
namespace {

struct TypeRow {
  DataType type;
  std::string_view name;
  std::size_t size;
};

constexpr TypeRow kTypes[] = {
    {DataType::kUndefined, "undefined", 0},   {DataType::kFloat32, "float32", 4},
    {DataType::kUint8, "uint8", 1},           {DataType::kInt8, "int8", 1},
    {DataType::kUint16, "uint16", 2},         {DataType::kInt16, "int16", 2},
    {DataType::kInt32, "int32", 4},           {DataType::kInt64, "int64", 8},
    {DataType::kString, "string", 0},         {DataType::kBool, "bool", 1},
    {DataType::kFloat16, "float16", 2},       {DataType::kFloat64, "float64", 8},
    {DataType::kUint32, "uint32", 4},         {DataType::kUint64, "uint64", 8},
    {DataType::kComplex64, "complex64", 8},   {DataType::kComplex128, "complex128", 16},
    {DataType::kBfloat16, "bfloat16", 2},     {DataType::kFloat8E4M3FN, "float8e4m3fn", 1},
    {DataType::kFloat8E4M3FNUZ, "float8e4m3fnuz", 1}, {DataType::kFloat8E5M2, "float8e5m2", 1},
    {DataType::kFloat8E5M2FNUZ, "float8e5m2fnuz", 1}, {DataType::kUint4, "uint4", 0},
    {DataType::kInt4, "int4", 0},             {DataType::kFloat4E2M1, "float4e2m1", 0},
};

const TypeRow* find(DataType type) {
  auto index = static_cast<std::size_t>(type);
  return index < std::size(kTypes) ? &kTypes[index] : nullptr;
}

}  // namespace

std::string_view dtype_name(DataType type) {
  const TypeRow* row = find(type);
  return row ? row->name : std::string_view("dtype(?)");
}

std::size_t dtype_size(DataType type) {
  const TypeRow* row = find(type);
  return row ? row->size : 0;
}

std::optional<DataType> dtype_from_onnx(std::int32_t value) {
  if (value < 0 || static_cast<std::size_t>(value) >= std::size(kTypes)) return std::nullopt;
  return static_cast<DataType>(value);
}

bool is_float_type(DataType type) {
  switch (type) {
    case DataType::kFloat16: case DataType::kFloat32: case DataType::kFloat64:
    case DataType::kBfloat16: case DataType::kFloat8E4M3FN: case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2: case DataType::kFloat8E5M2FNUZ: case DataType::kFloat4E2M1:
      return true;
    default:
      return false;
  }
}

bool is_integer_type(DataType type) {
  switch (type) {
    case DataType::kUint8: case DataType::kInt8: case DataType::kUint16: case DataType::kInt16:
    case DataType::kInt32: case DataType::kInt64: case DataType::kUint32: case DataType::kUint64:
    case DataType::kUint4: case DataType::kInt4:
      return true;
    default:
      return false;
  }
}

}  // namespace ogai
