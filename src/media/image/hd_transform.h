// Phi-3-V's HD transform (Hugging Face's Phi3VImageProcessor, microsoft/Phi-3-vision and
// Phi-3.5-vision; ONNX Runtime GenAI's Phi3ImageTransform): an RGB image -> a global image and
// crops of tile x tile pixels, as unscaled float planes [3, tile, tile] (0..255; rescale and
// normalize come after, as the processor normalizes first and interpolation commutes with it).
//  1. A portrait image (width < height) is transposed first and the result transposed back.
//  2. scale = the largest s with s * ceil(s / ratio) <= max_tiles (ratio = width / height, in
//     double); the image is resized with `filter` (Pillow's; the processor's torchvision resize
//     of a PIL image is bilinear) to width s * tile and height floor(width / ratio).
//  3. The height is padded to a multiple of tile with `pad_value`, centred (top = floor(pad / 2)).
//  4. The global image is the whole canvas interpolated to tile x tile with PyTorch's bicubic
//     (tensor_interpolate.h); the crops are the canvas's tiles in row-major order.
// The thumbnail (global image) goes first, last or nowhere per `thumbnail`.
// Throws kInvalidArgument naming `what` when the resized image would be empty (aspect ratios
// beyond s * tile : 1) or the canvas is over limits.max_pixels. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "media/image/limits.h"
#include "media/image/raster.h"
#include "media/image/resize.h"
#include "media/image/tile.h"

namespace ogai::media {

struct HdTiles {
  std::uint32_t rows = 0, columns = 0;                // the crop grid
  std::uint32_t canvas_width = 0, canvas_height = 0;  // the padded canvas (image_sizes)
  std::vector<std::vector<float>> planes;             // per tile [3, tile, tile], 0..255
};

HdTiles hd_transform(const Raster& rgb, std::uint32_t tile, std::uint32_t max_tiles, ResizeFilter filter,
                     std::uint8_t pad_value, TileSpec::Thumbnail thumbnail, const ImageLimits& limits,
                     const std::string& what);

// The soft-token count Phi-3-V's processor gives a canvas of rows x columns crops with
// `tokens_per_tile` tokens per crop (a square, e.g. 144 = 12 x 12): the crops' token grid and the
// global image's, each with one newline token per token row, and one separator token:
// (rows * columns + 1) * n + 1 + (rows + 1) * sqrt(n).
std::int64_t hd_token_count(std::uint32_t rows, std::uint32_t columns, std::uint32_t tokens_per_tile);

}  // namespace ogai::media
