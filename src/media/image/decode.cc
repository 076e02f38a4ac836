#include "media/image/decode.h"

#include "base/error.h"
#include "media/image/decoders.h"
#include "media/image/format.h"
#include "media/image/orientation.h"

namespace ogai::media {

Raster decode_image(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits) {
  if (bytes.empty()) fail(ErrorCode::kInvalidArgument, what, "the image is empty (0 bytes)");
  if (bytes.size() > limits.max_encoded_bytes)
    fail(ErrorCode::kInvalidArgument, what, "the image file is {} bytes, over the limit of {} (--max-media-bytes)", bytes.size(),
         limits.max_encoded_bytes);
  const auto format = sniff_image_format(bytes);
  if (!format)
    fail(ErrorCode::kInvalidArgument, what,
         "not an image ogai decodes (PNG, JPEG, WebP, GIF or BMP, recognised by signature); it starts with {}",
         leading_bytes_hex(bytes));
  Decoded d;
  switch (*format) {
    case ImageFormat::kPng: d = decode_png(bytes, what, limits); break;
    case ImageFormat::kJpeg: d = decode_jpeg(bytes, what, limits); break;
    case ImageFormat::kWebp: d = decode_webp(bytes, what, limits); break;
    case ImageFormat::kGif: d = decode_gif(bytes, what, limits); break;
    case ImageFormat::kBmp: d = decode_bmp(bytes, what, limits); break;
  }
  return apply_orientation(std::move(d.raster), d.orientation);
}

}  // namespace ogai::media
