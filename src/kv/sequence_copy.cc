#include "kv/sequence_copy.h"

#include <cstring>

#include "base/error.h"

namespace ogai::kv {

void copy_sequence_prefix(const ort::Tensor& src, ort::Tensor& dst, std::int64_t positions) {
  const auto& s = src.shape();
  const auto& d = dst.shape();
  // [..., positions, head_dim]: rank 4 ([B, H, S, D]) or 5 (combined [2, B, H, S, D]).
  const std::size_t rank = s.size();
  bool fits = (rank == 4 || rank == 5) && d.size() == rank && src.dtype() == dst.dtype() && s[rank - 2] >= positions &&
              d[rank - 2] >= positions && s[rank - 1] == d[rank - 1];
  for (std::size_t i = 0; fits && i + 2 < rank; ++i) fits = s[i] == d[i];
  if (!fits)
    fail(ErrorCode::kInternal, "kv copy", "cannot copy {} positions from {} {} to {} {}", positions,
         dtype_name(src.dtype()), ort::shape_string(s), dtype_name(dst.dtype()), ort::shape_string(d));
  const std::size_t row = static_cast<std::size_t>(s[rank - 1]) * dtype_size(src.dtype());
  const std::size_t bytes = static_cast<std::size_t>(positions) * row;
  if (bytes == 0) return;
  const auto* from = static_cast<const std::uint8_t*>(src.raw_data());
  auto* to = static_cast<std::uint8_t*>(dst.raw_data());
  const std::size_t src_stride = static_cast<std::size_t>(s[rank - 2]) * row;
  const std::size_t dst_stride = static_cast<std::size_t>(d[rank - 2]) * row;
  std::int64_t blocks = 1;
  for (std::size_t i = 0; i + 2 < rank; ++i) blocks *= s[i];
  for (std::int64_t bh = 0; bh < blocks; ++bh)
    std::memcpy(to + bh * dst_stride, from + bh * src_stride, bytes);
}

}  // namespace ogai::kv
