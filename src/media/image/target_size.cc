#include "media/image/target_size.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace ogai::media {
namespace {

Size checked(std::uint64_t width, std::uint64_t height, std::uint64_t max_pixels_out, const std::string& what,
             const char* mode) {
  if (width == 0 || height == 0 || width > 0xffffffffull || height > 0xffffffffull || width * height > max_pixels_out)
    fail(ErrorCode::kInvalidArgument, what, "{} resize gives {}x{}, outside 1..{} pixels", mode, width, height,
         max_pixels_out);
  return {static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height)};
}

}  // namespace

std::uint32_t round_to_multiple_ties_even(std::uint32_t value, std::uint32_t multiple) {
  const std::uint32_t q = value / multiple, r = value % multiple;
  std::uint32_t rounded = q;
  if (r > multiple - r || (r == multiple - r && q % 2 == 1)) rounded = q + 1;
  return rounded * multiple;
}

Size pixel_area_size(Size source, std::uint64_t min_pixels, std::uint64_t max_pixels, std::uint32_t multiple,
                     std::uint64_t max_pixels_out, const std::string& what) {
  const double w = source.width, h = source.height;
  const double aspect = std::max(w, h) / std::min(w, h);
  if (aspect > 200.0)
    fail(ErrorCode::kInvalidArgument, what, "pixel_area resize needs an aspect ratio of at most 200, got {}x{}",
         source.width, source.height);
  std::uint64_t rh = round_to_multiple_ties_even(source.height, multiple);
  std::uint64_t rw = round_to_multiple_ties_even(source.width, multiple);
  const double m = multiple;
  if (rw * rh > max_pixels) {
    const double beta = std::sqrt(w * h / static_cast<double>(max_pixels));
    rh = std::max<std::uint64_t>(static_cast<std::uint64_t>(std::floor(h / beta / m)), 1) * multiple;
    rw = std::max<std::uint64_t>(static_cast<std::uint64_t>(std::floor(w / beta / m)), 1) * multiple;
  } else if (rw * rh < min_pixels) {
    const double beta = std::sqrt(static_cast<double>(min_pixels) / (w * h));
    rh = std::max<std::uint64_t>(static_cast<std::uint64_t>(std::ceil(h * beta / m)), 1) * multiple;
    rw = std::max<std::uint64_t>(static_cast<std::uint64_t>(std::ceil(w * beta / m)), 1) * multiple;
  }
  return checked(rw, rh, max_pixels_out, what, "pixel_area");
}

Size patch_budget_size(Size source, std::uint64_t patch_size, std::uint64_t max_patches, std::uint64_t pooling,
                       std::uint64_t max_pixels_out, const std::string& what) {
  const std::uint64_t target_pixels = max_patches * patch_size * patch_size;
  const double w = source.width, h = source.height;
  const double factor = std::sqrt(static_cast<double>(target_pixels) / (w * h));
  const std::uint64_t side = patch_size * pooling;
  std::uint64_t th = static_cast<std::uint64_t>(std::floor(h * factor / static_cast<double>(side))) * side;
  std::uint64_t tw = static_cast<std::uint64_t>(std::floor(w * factor / static_cast<double>(side))) * side;
  if (th == 0 && tw == 0)
    fail(ErrorCode::kInvalidArgument, what, "aspect_ratio_patch_budget resize of {}x{} rounds both sides to zero",
         source.width, source.height);
  const std::uint64_t max_side = max_patches / (pooling * pooling) * side;
  if (th == 0) {
    th = side;
    tw = std::min<std::uint64_t>(source.width / source.height * side, max_side);
  } else if (tw == 0) {
    tw = side;
    th = std::min<std::uint64_t>(source.height / source.width * side, max_side);
  }
  if (th * tw > target_pixels)
    fail(ErrorCode::kInvalidArgument, what, "aspect_ratio_patch_budget resize {}x{} exceeds max_patches {}", tw, th,
         max_patches);
  return checked(tw, th, max_pixels_out, what, "aspect_ratio_patch_budget");
}

}  // namespace ogai::media
