#include "kv/row_copy.h"

#include <algorithm>
#include <cstring>
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
  // Rank 4 [B, H, S, D], or rank 5 combined [2, B, H, S, D] (planes before the batch axis).
  const std::size_t lead = s.size() == 5 ? 1 : 0;
  const bool fits = (s.size() == 4 || s.size() == 5) && d.size() == s.size() && (!lead || s[0] == d[0]) &&
                    s[lead + 1] == d[lead + 1] && s[lead + 3] == d[lead + 3] && src.dtype() == dst.dtype() &&
                    src_row >= 0 && src_row < s[lead] && dst_row >= 0 && dst_row < d[lead] && src_at >= 0 &&
                    dst_at >= 0 && positions >= 0 && src_at + positions <= s[lead + 2] &&
                    dst_at + positions <= d[lead + 2];
  if (!fits)
    fail(ErrorCode::kInternal, "kv row copy", "cannot copy {} positions from row {} at {} of {} to row {} at {} of {}",
         positions, src_row, src_at, ort::shape_string(s), dst_row, dst_at, ort::shape_string(d));
  if (positions == 0) return;
  const std::int64_t planes = lead ? s[0] : 1, heads = s[lead + 1];
  const std::int64_t sb = s[lead], db = d[lead], ss = s[lead + 2], ds = d[lead + 2];
  const std::size_t vec = static_cast<std::size_t>(s[lead + 3]) * dtype_size(src.dtype());
  std::vector<ort::ByteRange> ranges;
  ranges.reserve(static_cast<std::size_t>(planes * heads));
  for (std::int64_t p = 0; p < planes; ++p)
    for (std::int64_t h = 0; h < heads; ++h)
      ranges.push_back({static_cast<std::size_t>(((p * sb + src_row) * heads + h) * ss + src_at) * vec,
                        static_cast<std::size_t>(((p * db + dst_row) * heads + h) * ds + dst_at) * vec,
                        static_cast<std::size_t>(positions) * vec});
  ort::copy_ranges(src, dst, ranges);
}

void copy_row(const ort::Tensor& src, std::int64_t src_row, ort::Tensor& dst, std::int64_t dst_row) {
  const auto& s = src.shape();
  const auto& d = dst.shape();
  const bool fits = !s.empty() && s.size() == d.size() && std::equal(s.begin() + 1, s.end(), d.begin() + 1) &&
                    src.dtype() == dst.dtype() && src_row >= 0 && src_row < s[0] && dst_row >= 0 && dst_row < d[0];
  if (!fits)
    fail(ErrorCode::kInternal, "kv row copy", "cannot copy row {} of {} to row {} of {}", src_row, ort::shape_string(s),
         dst_row, ort::shape_string(d));
  const std::size_t bytes = row_bytes(src);
  if (bytes == 0) return;
  const ort::ByteRange range{static_cast<std::size_t>(src_row) * bytes, static_cast<std::size_t>(dst_row) * bytes,
                             bytes};
  ort::copy_ranges(src, dst, {&range, 1});
}

void zero_row_positions(ort::Tensor& t, std::int64_t row, std::int64_t at, std::int64_t positions) {
  const auto& s = t.shape();
  const std::size_t lead = s.size() == 5 ? 1 : 0;
  const bool fits = (s.size() == 4 || s.size() == 5) && t.location().host() && row >= 0 && row < s[lead] && at >= 0 &&
                    positions >= 0 && at + positions <= s[lead + 2];
  if (!fits)
    fail(ErrorCode::kInternal, "kv row copy", "cannot zero {} positions of row {} at {} of {}", positions, row, at,
         ort::shape_string(s));
  const std::int64_t planes = lead ? s[0] : 1, rows = s[lead], heads = s[lead + 1], length = s[lead + 2];
  const std::size_t vec = static_cast<std::size_t>(s[lead + 3]) * dtype_size(t.dtype());
  auto* base = static_cast<std::byte*>(t.raw_data());
  for (std::int64_t p = 0; p < planes; ++p)
    for (std::int64_t h = 0; h < heads; ++h)
      std::memset(base + static_cast<std::size_t>(((p * rows + row) * heads + h) * length + at) * vec, 0,
                  static_cast<std::size_t>(positions) * vec);
}

ort::Tensor keep_right_aligned(ort::Tensor&& t, std::span<const std::int64_t> lengths,
                               std::span<const std::int64_t> keep, std::int64_t width) {
  const auto& s = t.shape();
  const std::size_t lead = s.size() == 5 ? 1 : 0;
  bool fits = (s.size() == 4 || s.size() == 5) && t.location().host() && lengths.size() == keep.size() &&
              static_cast<std::int64_t>(keep.size()) == s[lead] && width >= 0 && width <= s[lead + 2];
  for (std::size_t r = 0; fits && r < keep.size(); ++r)
    fits = keep[r] >= 0 && keep[r] <= lengths[r] && lengths[r] <= s[lead + 2] && keep[r] <= width;
  if (!fits)
    fail(ErrorCode::kInternal, "kv row copy", "cannot roll the rows of {} back in place to width {}",
         ort::shape_string(s), width);
  const std::int64_t planes = lead ? s[0] : 1, rows = s[lead], heads = s[lead + 1], old_width = s[lead + 2];
  const std::size_t vec = static_cast<std::size_t>(s[lead + 3]) * dtype_size(t.dtype());
  auto* base = static_cast<std::byte*>(t.raw_data());
  for (std::int64_t p = 0; p < planes; ++p)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t h = 0; h < heads; ++h) {
        const auto block = static_cast<std::size_t>((p * rows + r) * heads + h);
        const auto len = static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)]);
        const auto kept = static_cast<std::size_t>(keep[static_cast<std::size_t>(r)]);
        const auto w = static_cast<std::size_t>(width), old = static_cast<std::size_t>(old_width);
        std::byte* to = base + (block * w + (w - kept)) * vec;
        const std::byte* from = base + (block * old + (old - len)) * vec;
        if (to != from && kept > 0) std::memmove(to, from, kept * vec);
        if (w > kept) std::memset(base + block * w * vec, 0, (w - kept) * vec);
      }
  ort::Shape shape = s;
  shape[lead + 2] = width;
  return ort::Tensor::narrowed(std::move(t), std::move(shape));
}

}  // namespace ogai::kv
