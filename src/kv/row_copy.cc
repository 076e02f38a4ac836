#include "kv/row_copy.h"

#include <algorithm>
#include <vector>

#include "base/error.h"
#include "ort/memory.h"

namespace ogai::kv {
namespace {

std::size_t row_bytes(const ort::Tensor& t) {
  return t.shape().empty() || t.shape()[0] == 0 ? 0 : t.byte_size() / static_cast<std::size_t>(t.shape()[0]);
}

}  // namespace

void copy_row_positions(const ort::Tensor& src, std::int64_t src_row, std::int64_t src_at, ort::Tensor& dst,
                        std::int64_t dst_row, std::int64_t dst_at, std::int64_t positions) {
  const auto& s = src.shape();
  const auto& d = dst.shape();
  const bool fits = s.size() == 4 && d.size() == 4 && s[1] == d[1] && s[3] == d[3] && src.dtype() == dst.dtype() &&
                    src_row >= 0 && src_row < s[0] && dst_row >= 0 && dst_row < d[0] && src_at >= 0 && dst_at >= 0 &&
                    positions >= 0 && src_at + positions <= s[2] && dst_at + positions <= d[2];
  if (!fits)
    fail(ErrorCode::kInternal, "kv row copy", "cannot copy {} positions from row {} at {} of {} to row {} at {} of {}",
         positions, src_row, src_at, ort::shape_string(s), dst_row, dst_at, ort::shape_string(d));
  if (positions == 0) return;
  const std::size_t vec = static_cast<std::size_t>(s[3]) * dtype_size(src.dtype());
  std::vector<ort::ByteRange> ranges(static_cast<std::size_t>(s[1]));
  for (std::int64_t h = 0; h < s[1]; ++h)
    ranges[static_cast<std::size_t>(h)] = {static_cast<std::size_t>((src_row * s[1] + h) * s[2] + src_at) * vec,
                                           static_cast<std::size_t>((dst_row * d[1] + h) * d[2] + dst_at) * vec,
                                           static_cast<std::size_t>(positions) * vec};
  ort::copy_ranges(src, dst, ranges);
}

void copy_row(const ort::Tensor& src, std::int64_t src_row, ort::Tensor& dst, std::int64_t dst_row) {
  const auto& s = src.shape();
  const auto& d = dst.shape();
  const bool fits = !s.empty() && s.size() == d.size() && std::equal(s.begin() + 1, s.end(), d.begin() + 1) &&
                    src.dtype() == dst.dtype() && src_row >= 0 && src_row < s[0] && dst_row >= 0 && dst_row < d[0];
  if (!fits)
    fail(ErrorCode::kInternal, "kv row copy", "cannot copy row {} of {} to row {} of {}", src_row,
         ort::shape_string(s), dst_row, ort::shape_string(d));
  const std::size_t bytes = row_bytes(src);
  if (bytes == 0) return;
  const ort::ByteRange range{static_cast<std::size_t>(src_row) * bytes, static_cast<std::size_t>(dst_row) * bytes, bytes};
  ort::copy_ranges(src, dst, {&range, 1});
}

}  // namespace ogai::kv
