// The `tile` op of preprocessing.image (the reference's semantics): an RGB image -> tiles of
// tile_size x tile_size, with an optional thumbnail (the whole image at tile size) before or
// after the local grid.
//  - fixed_grid / dynamic_anyres: the grid is the first of (columns x rows) 1x1, 1x2, 2x1, 1x3,
//    3x1, 2x2 (fixed_grid: 1x1) within max_tiles that keeps the most source pixels when the image
//    is fitted to it, then wastes the fewest; the image is resized to the grid's canvas (and to
//    the thumbnail) with the program's resize mode and interpolation, then cut row by row.
//  - dynamic_hd (Phi-3-V): the grid is ceil(W / tile) x ceil(H / tile), or when over max_tiles
//    the grid within max_tiles closest to the aspect ratio; the image is resized to fit the
//    canvas's width or height (floor), placed top-left on a canvas of canvas_pad_value, and a
//    validity mask per mask_patch_size cell marks the padding; the thumbnail is the canvas
//    resized with thumbnail_interpolation.
//  - hd_transform (Hugging Face's Phi-3-V processor): not cut here; the `tile` op runs
//    hd_transform.h for it (float tiles, a PyTorch-bicubic global image).
// Throws kInvalidArgument naming `what` for canvases over limits.max_pixels. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "media/image/fit.h"
#include "media/image/limits.h"
#include "media/image/raster.h"

namespace ogai::media {

struct TileSpec {
  enum class Mode { kFixedGrid, kDynamicAnyres, kDynamicHd, kHdTransform };
  enum class Thumbnail { kNone, kPrepend, kAppend };
  Mode mode = Mode::kDynamicAnyres;
  std::uint32_t tile_size = 0;
  std::uint32_t max_tiles = 6;
  Thumbnail thumbnail = Thumbnail::kNone;
  FitMode fit = FitMode::kStretch;  // the program's resize mode
  ResizeFilter filter = ResizeFilter::kBicubic, thumbnail_filter = ResizeFilter::kBicubic;
  std::uint32_t mask_patch_size = 0;  // dynamic_hd
  std::uint8_t canvas_pad_value = 0;  // dynamic_hd, hd_transform
  ResizeFilter hd_filter = ResizeFilter::kBilinear;  // hd_transform: the HD resize (`interpolation`)
};

struct Tiles {
  std::uint32_t columns = 1, rows = 1;
  std::uint32_t canvas_width = 0, canvas_height = 0;
  std::vector<Raster> tiles;                       // thumbnail first or last when present
  std::vector<std::vector<std::uint8_t>> masks;    // dynamic_hd: [edge * edge] per tile
};

Tiles tile_image(const Raster& rgb, const TileSpec& spec, const ImageLimits& limits, const std::string& what);

}  // namespace ogai::media
