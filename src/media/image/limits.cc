#include "media/image/limits.h"

#include "base/error.h"

namespace ogai::media {

void check_dimensions(std::uint64_t width, std::uint64_t height, std::uint64_t channels, const ImageLimits& limits,
                      const std::string& what, const char* format) {
  if (width == 0 || height == 0)
    fail(ErrorCode::kInvalidArgument, what, "the {} image declares an empty canvas {}x{}", format, width, height);
  // Both factors fit in 32 bits (every format stores them so), so the products cannot overflow.
  if (width > 0xffffffffull || height > 0xffffffffull || width * height > limits.max_pixels)
    fail(ErrorCode::kInvalidArgument, what,
         "the {} image declares {}x{} pixels, over the limit of {} pixels (a decompression bomb or an image "
         "too large to preprocess; --max-image-pixels)",
         format, width, height, limits.max_pixels);
  if (width * height * channels > limits.max_decoded_bytes)
    fail(ErrorCode::kInvalidArgument, what, "the {} image would decode to {} bytes ({}x{}x{}), over the limit of {} "
         "(--max-decoded-bytes)",
         format, width * height * channels, width, height, channels, limits.max_decoded_bytes);
}

}  // namespace ogai::media
