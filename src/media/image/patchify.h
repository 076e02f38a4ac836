// Patch packing of a normalised image (Qwen2-VL's flattened patches and its variants):
// [3, H, W] float pixels -> [count, feature] rows, feature = 3 * temporal * patch * patch.
//  - patch order: merge groups (each merge x merge block of patches contiguous, blocks in raster
//    order) or plain raster order;
//  - channels first: per patch [C, T, p, p] (channel_major) or [T, C, p, p] (temporal_major);
//    channels last: [T, p, p, C]. A still image repeats itself along T;
//  - coordinates: per patch (row, column) in patches, or (column, row) with `xy`;
//  - grid: [T-groups = 1, H / patch, W / patch] (the image_grid_thw row).
// The pixels come as float planes, or as an 8-bit RGB raster and a per-channel table of the float
// each sample value becomes (the rescale / normalize ops applied to the 256 values, so every
// element equals what the ops give applied one by one, without materialising the planes).
// Throws kInvalidArgument naming `what` when H or W is not a multiple of the patch size, or the
// patch grid of the merge size. Pure; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "media/image/raster.h"

namespace ogai::media {

struct PatchSpec {
  std::uint32_t patch = 14, temporal = 1, merge = 1;
  bool channels_last = false, temporal_major = false, raster_order = false, xy = false;
  std::uint64_t reserve_count = 0;  // room for this many patches (a later pad grows in place)
};

struct Patches {
  std::int64_t count = 0, feature = 0;
  // [count, feature] float32 in native byte order, held as bytes so that it can become an
  // output tensor's data without a copy.
  std::vector<std::uint8_t> bytes;
  float* values() { return reinterpret_cast<float*>(bytes.data()); }
  const float* values() const { return reinterpret_cast<const float*>(bytes.data()); }
  std::vector<std::int64_t> coords;   // [count, 2]
  std::array<std::int64_t, 3> grid{};  // [t, h, w] in patches
};

// table[c][v]: the float channel c's sample value v stands for.
using ChannelTable = std::array<std::array<float, 256>, 3>;

Patches patchify(const std::vector<float>& chw, std::uint32_t width, std::uint32_t height, const PatchSpec& spec,
                 const std::string& what);
Patches patchify(const Raster& rgb, const ChannelTable& table, const PatchSpec& spec, const std::string& what);

}  // namespace ogai::media
