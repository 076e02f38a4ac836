// The declarative `preprocessing.image` program of an onnx-genai v1 document (the reference
// runtime's crates/onnx-genai-preprocess semantics): a list of transforms over named values and
// the typed outputs they feed. parse() validates the whole program once (every op, parameter,
// value name and the kinds flowing between them; errors name the document path), run() executes
// it on one encoded image.
//
// Ops: decode / decode_rgb, convert_rgb (alpha dropped, or with `background` composited), resize (stretch | crop | pad | pixel_area |
// aspect_ratio_patch_budget; nearest, bilinear, bicubic, lanczos equal to Pillow), rescale,
// normalize, patchify (patch, temporal and merge sizes; channel, temporal, patch and coordinate
// orders), flatten, pad, emit_original_size, emit_transformed_size, emit_validity_mask,
// emit_patch_coordinates, emit_grid_coordinates, emit_token_count (patches per token, or hd_transform.h's count), tile
// (fixed_grid, dynamic_anyres, dynamic_hd, hd_transform; thumbnail; tile.h, hd_transform.h).
// Outputs: pixels (fp32 / fp16 / bf16), grid_dimensions, patch_coordinates, original_size,
// transformed_size, validity_mask, token_count (integer dtypes, or float ones).
//
// Value kinds flowing between ops: raster (8-bit image) -> pixels (float, [3, H, W] per tile; one
// tile unless `tile` cut several) -> patches ([count, feature]) -> padded patches; pixels may
// also be padded to a tile count ([1, L, 3, H, W]); the emit_* ops make small integer tensors.
// Immutable after parse; run() is const and thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/dtype.h"
#include "media/image/limits.h"
#include "media/image/resize.h"
#include "media/image/tile.h"

namespace ogai::media {

// One produced tensor, row-major, its bytes in `dtype` (bool as 0/1 bytes).
struct ProgramTensor {
  std::string name;     // the output's name, e.g. "image.pixel_values"
  std::string content;  // pixels, grid_dimensions, ...
  DataType dtype = DataType::kFloat32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> data;
};

class ImageProgram {
 public:
  enum class Op {
    kDecode, kConvertRgb, kResize, kRescale, kNormalize, kTile, kPatchify, kFlatten, kPad,
    kEmitOriginalSize, kEmitTransformedSize, kEmitValidityMask, kEmitPatchCoordinates, kEmitGridCoordinates,
    kEmitTokenCount,
  };
  enum class ResizeMode { kStretch, kCrop, kPad, kPixelArea, kPatchBudget };
  enum class Kind { kRaster, kPixels, kPatches, kPadded, kInts };

  struct Transform {
    Op op{};
    std::string path;  // preprocessing.image.transforms[i]
    std::vector<std::string> inputs, outputs;
    bool to_rgb = false;  // decode_rgb
    std::optional<std::array<std::uint8_t, 3>> background;  // convert_rgb: composite alpha over it (composite.h)
    // resize
    ResizeMode mode = ResizeMode::kStretch;
    ResizeFilter filter = ResizeFilter::kBicubic;
    std::uint32_t width = 0, height = 0;
    std::uint64_t min_pixels = 0, max_pixels = 0, multiple = 0, max_patches = 0, pooling = 0;
    // rescale / normalize
    float scale = 1.0f;
    float mean[3] = {0, 0, 0}, std[3] = {1, 1, 1};
    // patchify
    std::uint32_t patch_size = 0, temporal = 1, merge = 1;
    bool channels_last = false, temporal_major = false, raster_order = false, xy = false;
    std::uint64_t reserve_patches = 0;  // a later pad's target_length (set by parse)
    // tile (its fit and filter come from the program's resize, as in the reference)
    TileSpec tiling;
    // pad
    std::uint64_t target_length = 0;
    double pad_value = 0.0;
    // emit_token_count: patches per token (0: the patchify's merge_size squared), or the tokens
    // of one hd_transform tile
    std::uint32_t patches_per_token = 0, tokens_per_tile = 0;
  };

  struct Output {
    std::string name, content, source, path;
    DataType dtype = DataType::kFloat32;
    std::optional<double> pad_value;
    bool optional = false;
    bool nhwc = false;  // pixels from unpatchified tiles, when the contract is [N, H, W, 3]
  };

  // `image` is the document's preprocessing.image object; `path` its document path. Throws
  // kInvalidPackage naming the transform or output and the field.
  static ImageProgram parse(const nlohmann::json& image, const std::string& path);

  // Every declared output (optional ones that cannot be made are left out). `what` names the
  // input in errors.
  std::vector<ProgramTensor> run(std::span<const std::uint8_t> encoded, const std::string& what,
                                 const ImageLimits& limits = {}) const;

  const std::vector<Output>& outputs() const { return outputs_; }
  const std::vector<Transform>& transforms() const { return transforms_; }

 private:
  std::vector<Transform> transforms_;
  std::vector<Output> outputs_;
};

}  // namespace ogai::media
