#include "media/image/tile.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

#include "base/error.h"

namespace ogai::media {
namespace {

struct Grid {
  std::uint32_t columns, rows;
};

constexpr Grid kAnyresGrids[] = {{1, 1}, {1, 2}, {2, 1}, {1, 3}, {3, 1}, {2, 2}};

void check_canvas(std::uint64_t w, std::uint64_t h, const ImageLimits& limits, const std::string& what) {
  if (w * h > limits.max_pixels)
    fail(ErrorCode::kInvalidArgument, what, "tiling needs a {}x{} canvas, over {} pixels", w, h, limits.max_pixels);
}

Raster crop(const Raster& in, std::uint32_t x0, std::uint32_t y0, std::uint32_t w, std::uint32_t h) {
  Raster out = make_raster(w, h, in.channels);
  for (std::uint32_t y = 0; y < h; ++y)
    std::memcpy(out.row(y), in.row(y0 + y) + static_cast<std::size_t>(x0) * in.channels, out.row_bytes());
  return out;
}

Grid best_anyres(const Raster& img, const TileSpec& spec, const std::string& what) {
  const std::uint64_t area = static_cast<std::uint64_t>(img.width) * img.height;
  bool found = false;
  Grid best{1, 1};
  std::uint64_t best_effective = 0, best_wasted = 0;
  for (const Grid g : kAnyresGrids) {
    if (g.columns * g.rows > spec.max_tiles) continue;
    const double cw = static_cast<double>(g.columns) * spec.tile_size, chh = static_cast<double>(g.rows) * spec.tile_size;
    const double scale = std::min(cw / img.width, chh / img.height);
    const auto fw = static_cast<std::uint64_t>(std::floor(img.width * scale));
    const auto fh = static_cast<std::uint64_t>(std::floor(img.height * scale));
    const std::uint64_t effective = std::min(fw * fh, area);
    const std::uint64_t canvas = static_cast<std::uint64_t>(cw) * static_cast<std::uint64_t>(chh);
    const std::uint64_t wasted = canvas > effective ? canvas - effective : 0;
    if (!found || effective > best_effective || (effective == best_effective && wasted < best_wasted)) {
      found = true, best = g, best_effective = effective, best_wasted = wasted;
    }
  }
  if (!found) fail(ErrorCode::kInvalidArgument, what, "no tile grid fits max_tiles {}", spec.max_tiles);
  return best;
}

void place(Tiles& t, Raster thumbnail, std::vector<std::uint8_t> thumbnail_mask, const TileSpec& spec,
           std::vector<Raster> local, std::vector<std::vector<std::uint8_t>> local_masks) {
  const bool masks = !thumbnail_mask.empty();
  if (spec.thumbnail == TileSpec::Thumbnail::kPrepend) {
    t.tiles.push_back(std::move(thumbnail));
    if (masks) t.masks.push_back(thumbnail_mask);
  }
  for (std::size_t i = 0; i < local.size(); ++i) {
    t.tiles.push_back(std::move(local[i]));
    if (masks) t.masks.push_back(std::move(local_masks[i]));
  }
  if (spec.thumbnail == TileSpec::Thumbnail::kAppend) {
    t.tiles.push_back(std::move(thumbnail));
    if (masks) t.masks.push_back(std::move(thumbnail_mask));
  }
}

Tiles grid_tiles(const Raster& img, const TileSpec& spec, Grid g, const ImageLimits& limits, const std::string& what) {
  const std::uint32_t ts = spec.tile_size;
  Tiles t;
  t.columns = g.columns, t.rows = g.rows;
  t.canvas_width = g.columns * ts, t.canvas_height = g.rows * ts;
  check_canvas(t.canvas_width, t.canvas_height, limits, what);
  const Raster canvas = resize_fit(img, spec.fit, spec.filter, t.canvas_width, t.canvas_height, limits, what);
  std::vector<Raster> local;
  for (std::uint32_t r = 0; r < g.rows; ++r)
    for (std::uint32_t c = 0; c < g.columns; ++c) local.push_back(crop(canvas, c * ts, r * ts, ts, ts));
  Raster thumbnail;
  if (spec.thumbnail != TileSpec::Thumbnail::kNone) thumbnail = resize_fit(img, spec.fit, spec.filter, ts, ts, limits, what);
  place(t, std::move(thumbnail), {}, spec, std::move(local), {});
  return t;
}

Grid hd_grid(const Raster& img, const TileSpec& spec) {
  const std::uint32_t ts = spec.tile_size;
  Grid g{(img.width + ts - 1) / ts, (img.height + ts - 1) / ts};
  if (static_cast<std::uint64_t>(g.columns) * g.rows <= spec.max_tiles) return g;
  const double aspect = static_cast<double>(img.width) / img.height;
  const std::uint64_t area = static_cast<std::uint64_t>(img.width) * img.height;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> candidates;  // (count, columns, rows)
  for (std::uint32_t c = 1; c <= spec.max_tiles; ++c)
    for (std::uint32_t r = 1; r <= spec.max_tiles / c; ++r) candidates.emplace_back(c * r, c, r);
  std::sort(candidates.begin(), candidates.end());
  bool found = false;
  double best_diff = 0;
  for (const auto& [count, c, r] : candidates) {
    const double diff = std::fabs(aspect - static_cast<double>(c) / r);
    const bool prefer_larger = area > static_cast<std::uint64_t>(ts) * ts * c * r / 2;
    if (!found || diff < best_diff || (diff == best_diff && prefer_larger)) {
      found = true, g = {c, r}, best_diff = diff;
    }
  }
  return g;
}

Tiles hd_tiles(const Raster& img, const TileSpec& spec, const ImageLimits& limits, const std::string& what) {
  const std::uint32_t ts = spec.tile_size;
  const Grid g = hd_grid(img, spec);
  Tiles t;
  t.columns = g.columns, t.rows = g.rows;
  const std::uint64_t cw = static_cast<std::uint64_t>(g.columns) * ts, chh = static_cast<std::uint64_t>(g.rows) * ts;
  check_canvas(cw, chh, limits, what);
  t.canvas_width = static_cast<std::uint32_t>(cw), t.canvas_height = static_cast<std::uint32_t>(chh);
  const double wr = static_cast<double>(cw) / img.width, hr = static_cast<double>(chh) / img.height;
  std::uint32_t rw = t.canvas_width, rh = t.canvas_height;
  if (wr < hr) rh = static_cast<std::uint32_t>(std::floor(img.height * wr));
  else rw = static_cast<std::uint32_t>(std::floor(img.width * hr));
  if (rw < 10 || rh < 10)
    fail(ErrorCode::kInvalidArgument, what, "dynamic_hd tiling of {}x{} gives an extreme {}x{}", img.width, img.height,
         rw, rh);
  const Raster resized = resize(img, rw, rh, spec.filter);
  Raster canvas = make_raster(t.canvas_width, t.canvas_height, img.channels);
  std::fill(canvas.pixels.begin(), canvas.pixels.end(), spec.canvas_pad_value);
  for (std::uint32_t y = 0; y < rh; ++y) std::memcpy(canvas.row(y), resized.row(y), resized.row_bytes());
  const std::uint32_t edge = ts / spec.mask_patch_size;
  const std::size_t mw = static_cast<std::size_t>(g.columns) * edge, mh = static_cast<std::size_t>(g.rows) * edge;
  std::vector<std::uint8_t> mask(mw * mh, 1);
  const std::size_t bad_cols = (t.canvas_width - rw) / spec.mask_patch_size;
  const std::size_t bad_rows = (t.canvas_height - rh) / spec.mask_patch_size;
  for (std::size_t y = 0; y < mh; ++y)
    for (std::size_t x = 0; x < mw; ++x)
      if (x >= mw - bad_cols || y >= mh - bad_rows) mask[y * mw + x] = 0;
  std::vector<Raster> local;
  std::vector<std::vector<std::uint8_t>> masks;
  for (std::uint32_t r = 0; r < g.rows; ++r)
    for (std::uint32_t c = 0; c < g.columns; ++c) {
      local.push_back(crop(canvas, c * ts, r * ts, ts, ts));
      std::vector<std::uint8_t> m;
      for (std::uint32_t y = 0; y < edge; ++y) {
        const std::uint8_t* row = &mask[(static_cast<std::size_t>(r) * edge + y) * mw + static_cast<std::size_t>(c) * edge];
        m.insert(m.end(), row, row + edge);
      }
      masks.push_back(std::move(m));
    }
  Raster thumbnail;
  std::vector<std::uint8_t> thumbnail_mask(static_cast<std::size_t>(edge) * edge, 1);
  if (spec.thumbnail != TileSpec::Thumbnail::kNone) thumbnail = resize(canvas, ts, ts, spec.thumbnail_filter);
  place(t, std::move(thumbnail), std::move(thumbnail_mask), spec, std::move(local), std::move(masks));
  return t;
}

}  // namespace

Tiles tile_image(const Raster& rgb, const TileSpec& spec, const ImageLimits& limits, const std::string& what) {
  switch (spec.mode) {
    case TileSpec::Mode::kFixedGrid: return grid_tiles(rgb, spec, kAnyresGrids[0], limits, what);
    case TileSpec::Mode::kDynamicAnyres: return grid_tiles(rgb, spec, best_anyres(rgb, spec, what), limits, what);
    case TileSpec::Mode::kDynamicHd: return hd_tiles(rgb, spec, limits, what);
    case TileSpec::Mode::kHdTransform:
      fail(ErrorCode::kInternal, what, "hd_transform tiles are cut by hd_transform(), not tile_image()");
  }
  return {};
}

}  // namespace ogai::media
