#include "kv/sequence_copy.h"

#include <cstring>

#include "base/error.h"

namespace ogai::kv {

void copy_sequence_prefix(const ort::Tensor& src, ort::Tensor& dst, std::int64_t positions) {
  const auto& s = src.shape();
  const auto& d = dst.shape();
  if (s.size() != 4 || d.size() != 4 || s[0] != d[0] || s[1] != d[1] || s[3] != d[3] ||
      src.dtype() != dst.dtype() || s[2] < positions || d[2] < positions)
    fail(ErrorCode::kInternal, "kv copy", "cannot copy {} positions from {} {} to {} {}", positions,
         dtype_name(src.dtype()), ort::shape_string(s), dtype_name(dst.dtype()), ort::shape_string(d));
  const std::size_t row = static_cast<std::size_t>(s[3]) * dtype_size(src.dtype());
  const std::size_t bytes = static_cast<std::size_t>(positions) * row;
  if (bytes == 0) return;
  const auto* from = static_cast<const std::uint8_t*>(src.raw_data());
  auto* to = static_cast<std::uint8_t*>(dst.raw_data());
  const std::size_t src_stride = static_cast<std::size_t>(s[2]) * row;
  const std::size_t dst_stride = static_cast<std::size_t>(d[2]) * row;
  for (std::int64_t bh = 0; bh < s[0] * s[1]; ++bh)
    std::memcpy(to + bh * dst_stride, from + bh * src_stride, bytes);
}

}  // namespace ogai::kv
