#include "generate/mrope_positions.h"

#include <algorithm>

#include "base/error.h"

namespace ogai::generate {
namespace {

constexpr std::int64_t kMaxGridDim = std::int64_t{1} << 20;  // keeps t * h * w far from overflow

void check_merge(std::int64_t merge) {
  if (merge < 1 || merge > kMaxGridDim)
    fail(ErrorCode::kInvalidArgument, "spatial_merge_size", "{} is not a merge size (expected 1 .. {})", merge,
         kMaxGridDim);
}

// Appends `count` text positions starting at `from` on every axis.
void append_text(std::vector<std::int64_t> (&axes)[3], std::int64_t from, std::int64_t count) {
  for (auto& axis : axes)
    for (std::int64_t i = 0; i < count; ++i) axis.push_back(from + i);
}

// Appends an image's (t, h, w) grid positions offset by `from`; returns the largest one.
std::int64_t append_image(std::vector<std::int64_t> (&axes)[3], const MropeGrid& g, std::int64_t merge,
                          std::int64_t from) {
  const std::int64_t h = g.h / merge, w = g.w / merge;
  for (std::int64_t t = 0; t < g.t; ++t)
    for (std::int64_t y = 0; y < h; ++y)
      for (std::int64_t x = 0; x < w; ++x) {
        axes[0].push_back(from + t);
        axes[1].push_back(from + y);
        axes[2].push_back(from + x);
      }
  return from + std::max({g.t, h, w}) - 1;
}

}  // namespace

std::int64_t MropePositions::at(int axis, std::int64_t index) const {
  OGAI_CHECK(axis >= 0 && axis < 3 && index >= 0);
  if (index >= length) return index + delta;
  return axes[static_cast<std::size_t>(axis * length + index)];
}

std::int64_t mrope_soft_tokens(const MropeGrid& g, std::int64_t merge) {
  check_merge(merge);
  auto bad = [](std::int64_t d) { return d < 1 || d > kMaxGridDim; };
  if (bad(g.t) || bad(g.h) || bad(g.w) || g.h % merge != 0 || g.w % merge != 0)
    fail(ErrorCode::kInvalidArgument, "image_grid_thw",
         "[{}, {}, {}] is not a grid of patches for a spatial merge of {} (each dimension 1 .. {}, height and width "
         "multiples of the merge)", g.t, g.h, g.w, merge, kMaxGridDim);
  return g.t * (g.h / merge) * (g.w / merge);
}

MropePositions mrope_positions(std::int64_t length, std::span<const MropeSpan> spans, std::int64_t merge) {
  check_merge(merge);
  if (length < 0) fail(ErrorCode::kInvalidArgument, "mrope", "sequence length {} is negative", length);
  std::vector<std::int64_t> axes[3];
  for (auto& axis : axes) axis.reserve(static_cast<std::size_t>(length));
  std::int64_t cursor = 0, next = 0;  // next: the position the next text token gets
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const MropeSpan& s = spans[i];
    const std::int64_t n = mrope_soft_tokens(s.grid, merge);
    if (s.start < cursor || s.start > length || n > length - s.start)
      fail(ErrorCode::kInvalidArgument, fmt::format("images[{}]", i),
           "{} soft tokens from index {} do not fit a sequence of {} after the previous image's end at {}", n, s.start,
           length, cursor);
    append_text(axes, next, s.start - cursor);
    next = append_image(axes, s.grid, merge, next + (s.start - cursor)) + 1;
    cursor = s.start + n;
  }
  append_text(axes, next, length - cursor);
  next += length - cursor;
  MropePositions out;
  out.length = length;
  out.delta = next - length;
  out.axes.reserve(static_cast<std::size_t>(3 * length));
  for (auto& axis : axes) out.axes.insert(out.axes.end(), axis.begin(), axis.end());
  return out;
}

std::vector<MropeSpan> mrope_spans(std::span<const TokenId> ids, TokenId soft, std::span<const MropeGrid> grids,
                                   std::int64_t merge) {
  std::vector<MropeSpan> out;
  std::size_t cursor = 0;
  for (std::size_t i = 0; i < grids.size(); ++i) {
    const std::int64_t n = mrope_soft_tokens(grids[i], merge);
    auto first = std::find(ids.begin() + static_cast<std::ptrdiff_t>(cursor), ids.end(), soft);
    const auto start = static_cast<std::size_t>(first - ids.begin());
    std::size_t run = 0;
    while (start + run < ids.size() && ids[start + run] == soft) ++run;
    if (first == ids.end() || static_cast<std::int64_t>(run) < n)
      fail(ErrorCode::kInvalidArgument, fmt::format("images[{}]", i),
           "grid [{}, {}, {}] needs {} soft tokens (id {}) from index {}, the prompt has {}", grids[i].t, grids[i].h,
           grids[i].w, n, soft, start, run);
    out.push_back({static_cast<std::int64_t>(start), grids[i]});
    cursor = start + static_cast<std::size_t>(n);
  }
  return out;
}

}  // namespace ogai::generate
