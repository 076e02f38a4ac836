// Patch packing of a normalised image (Qwen2-VL's flattened patches and its variants):
// [3, H, W] float pixels -> [count, feature] rows, feature = 3 * temporal * patch * patch.
//  - patch order: merge groups (each merge x merge block of patches contiguous, blocks in raster
//    order) or plain raster order;
//  - channels first: per patch [C, T, p, p] (channel_major) or [T, C, p, p] (temporal_major);
//    channels last: [T, p, p, C]. A still image repeats itself along T;
//  - coordinates: per patch (row, column) in patches, or (column, row) with `xy`;
//  - grid: [T-groups = 1, H / patch, W / patch] (the image_grid_thw row).
// Throws kInvalidArgument naming `what` when H or W is not a multiple of the patch size, or the
// patch grid of the merge size. Pure; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ogai::media {

struct PatchSpec {
  std::uint32_t patch = 14, temporal = 1, merge = 1;
  bool channels_last = false, temporal_major = false, raster_order = false, xy = false;
};

struct Patches {
  std::int64_t count = 0, feature = 0;
  std::vector<float> data;            // [count, feature]
  std::vector<std::int64_t> coords;   // [count, 2]
  std::array<std::int64_t, 3> grid{};  // [t, h, w] in patches
};

Patches patchify(const std::vector<float>& chw, std::uint32_t width, std::uint32_t height, const PatchSpec& spec,
                 const std::string& what);

}  // namespace ogai::media
