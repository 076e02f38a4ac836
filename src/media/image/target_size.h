// The target sizes of the dynamic resize modes of preprocessing.image (from the source size):
//  - pixel_area (Qwen2-VL's smart_resize): each side rounded to a multiple of `multiple` with
//    ties to even; when the area is over max_pixels both sides shrink by sqrt(area / max) and
//    floor to the multiple, when under min_pixels they grow by sqrt(min / area) and ceil to it
//    (never below one multiple). Aspect ratios over 200 are refused.
//  - aspect_ratio_patch_budget (Gemma-3n/4): the largest size of whole patch_size x pooling
//    blocks within max_patches patches at the source's aspect ratio.
// Each throws kInvalidArgument naming `what` when the result is empty or over `max_pixels_out`.
#pragma once

#include <cstdint>
#include <string>

namespace ogai::media {

struct Size {
  std::uint32_t width = 0, height = 0;
};

std::uint32_t round_to_multiple_ties_even(std::uint32_t value, std::uint32_t multiple);

Size pixel_area_size(Size source, std::uint64_t min_pixels, std::uint64_t max_pixels, std::uint32_t multiple,
                     std::uint64_t max_pixels_out, const std::string& what);

Size patch_budget_size(Size source, std::uint64_t patch_size, std::uint64_t max_patches, std::uint64_t pooling,
                       std::uint64_t max_pixels_out, const std::string& what);

}  // namespace ogai::media
