#include "media/image/hd_transform.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/error.h"
#include "media/image/tensor_interpolate.h"

namespace ogai::media {
namespace {

Raster transpose(const Raster& in) {
  Raster out = make_raster(in.height, in.width, in.channels);
  const std::uint32_t c = in.channels;
  for (std::uint32_t y = 0; y < in.height; ++y) {
    const std::uint8_t* src = in.row(y);
    for (std::uint32_t x = 0; x < in.width; ++x)
      std::memcpy(out.row(x) + static_cast<std::size_t>(y) * c, src + static_cast<std::size_t>(x) * c, c);
  }
  return out;
}

// Unscaled float [3, h, w] of the window (x0, y0, w, h) of an RGB raster.
std::vector<float> planes_of(const Raster& rgb, std::uint32_t x0, std::uint32_t y0, std::uint32_t w, std::uint32_t h) {
  const std::size_t plane = static_cast<std::size_t>(w) * h;
  std::vector<float> chw(plane * 3);
  for (std::uint32_t y = 0; y < h; ++y) {
    const std::uint8_t* src = rgb.row(y0 + y) + static_cast<std::size_t>(x0) * 3;
    for (std::uint32_t x = 0; x < w; ++x)
      for (std::uint32_t c = 0; c < 3; ++c) chw[c * plane + static_cast<std::size_t>(y) * w + x] = src[x * 3 + c];
  }
  return chw;
}

}  // namespace

HdTiles hd_transform(const Raster& rgb, std::uint32_t tile, std::uint32_t max_tiles, ResizeFilter filter,
                     std::uint8_t pad_value, TileSpec::Thumbnail thumbnail, const ImageLimits& limits,
                     const std::string& what) {
  const bool transposed = rgb.width < rgb.height;
  const Raster upright = transposed ? transpose(rgb) : Raster{};
  const Raster& img = transposed ? upright : rgb;
  const double ratio = static_cast<double>(img.width) / img.height;
  std::uint64_t scale = 1;
  while (static_cast<double>(scale) * std::ceil(static_cast<double>(scale) / ratio) <= max_tiles) ++scale;
  scale -= 1;
  const std::uint64_t new_w = scale * tile;
  const auto new_h = static_cast<std::uint64_t>(static_cast<double>(new_w) / ratio);
  const std::uint64_t canvas_h = (new_h + tile - 1) / tile * tile;
  if (new_h == 0 || new_w * canvas_h > limits.max_pixels)
    fail(ErrorCode::kInvalidArgument, what, "the HD transform of a {}x{} image gives a {}x{} canvas, outside 1..{} pixels",
         rgb.width, rgb.height, transposed ? canvas_h : new_w, transposed ? new_w : canvas_h, limits.max_pixels);
  const Raster resized = resize(img, static_cast<std::uint32_t>(new_w), static_cast<std::uint32_t>(new_h), filter);
  Raster canvas = make_raster(static_cast<std::uint32_t>(new_w), static_cast<std::uint32_t>(canvas_h), 3);
  std::fill(canvas.pixels.begin(), canvas.pixels.end(), pad_value);
  const std::uint64_t top = (canvas_h - new_h) / 2;
  for (std::uint32_t y = 0; y < resized.height; ++y)
    std::memcpy(canvas.row(static_cast<std::uint32_t>(top + y)), resized.row(y), resized.row_bytes());
  if (transposed) canvas = transpose(canvas);

  HdTiles out;
  out.canvas_width = canvas.width, out.canvas_height = canvas.height;
  out.columns = canvas.width / tile, out.rows = canvas.height / tile;
  std::vector<float> global;
  if (thumbnail != TileSpec::Thumbnail::kNone)
    global = interpolate_bicubic(planes_of(canvas, 0, 0, canvas.width, canvas.height), 3, canvas.width, canvas.height,
                                 tile, tile);
  if (thumbnail == TileSpec::Thumbnail::kPrepend) out.planes.push_back(std::move(global));
  for (std::uint32_t r = 0; r < out.rows; ++r)
    for (std::uint32_t c = 0; c < out.columns; ++c) out.planes.push_back(planes_of(canvas, c * tile, r * tile, tile, tile));
  if (thumbnail == TileSpec::Thumbnail::kAppend) out.planes.push_back(std::move(global));
  return out;
}

std::int64_t hd_token_count(std::uint32_t rows, std::uint32_t columns, std::uint32_t tokens_per_tile) {
  const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(tokens_per_tile))));
  const std::int64_t n = tokens_per_tile;
  return (static_cast<std::int64_t>(rows) * columns + 1) * n + 1 + (static_cast<std::int64_t>(rows) + 1) * side;
}

}  // namespace ogai::media
