#include "generate/index_feed.h"

#include <limits>

#include "base/error.h"

namespace ogai::generate {

namespace {

void check_index_dtype(DataType dtype, std::string_view port) {
  if (!is_index_dtype(dtype))
    fail(ErrorCode::kInternal, std::string(port), "index feeds are int32 or int64, not {}", dtype_name(dtype));
}

}  // namespace

ort::Tensor ids_feed(DataType dtype, ort::Shape shape, std::span<const TokenId> ids, std::vector<std::int64_t>& scratch,
                     std::string_view port) {
  check_index_dtype(dtype, port);
  if (dtype == DataType::kInt32)  // ORT never writes inputs
    return ort::Tensor::view(DataType::kInt32, std::move(shape), const_cast<TokenId*>(ids.data()));
  scratch.assign(ids.begin(), ids.end());
  return ort::Tensor::view(DataType::kInt64, std::move(shape), scratch.data());
}

ort::Tensor index_feed(DataType dtype, ort::Shape shape, std::span<const std::int64_t> values,
                       std::vector<std::int32_t>& scratch, std::string_view port) {
  check_index_dtype(dtype, port);
  auto* data = const_cast<std::int64_t*>(values.data());  // ORT never writes inputs
  if (dtype == DataType::kInt64) return ort::Tensor::view(DataType::kInt64, std::move(shape), data);
  scratch.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t v = values[i];
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
      fail(ErrorCode::kInvalidArgument, std::string(port), "value {} does not fit the port's int32", v);
    scratch[i] = static_cast<std::int32_t>(v);
  }
  return ort::Tensor::view(DataType::kInt32, std::move(shape), scratch.data());
}

}  // namespace ogai::generate
