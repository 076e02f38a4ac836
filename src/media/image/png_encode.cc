#include "media/image/png_encode.h"

#include <png.h>

#include <cstring>

#include "base/error.h"

namespace ogai::media {
namespace {

png_uint_32 png_format(std::uint32_t channels) {
  switch (channels) {
    case 1: return PNG_FORMAT_GRAY;
    case 2: return PNG_FORMAT_GA;
    case 3: return PNG_FORMAT_RGB;
    case 4: return PNG_FORMAT_RGBA;
    default: return 0;
  }
}

}  // namespace

std::vector<std::uint8_t> encode_png(const Raster& raster, const std::string& where) {
  if (raster.channels < 1 || raster.channels > 4)
    fail(ErrorCode::kInvalidArgument, where, "a PNG holds 1 to 4 channels; got {}", raster.channels);
  // PNG's own limit is 2^31 - 1 per side; ogai's is the decoders' pixel budget's order.
  constexpr std::uint64_t kMaxSide = 1u << 16;
  if (raster.width == 0 || raster.height == 0 || raster.width > kMaxSide || raster.height > kMaxSide)
    fail(ErrorCode::kInvalidArgument, where, "cannot encode a {}x{} image as PNG (each side 1..{})", raster.width,
         raster.height, kMaxSide);
  if (raster.pixels.size() != raster.row_bytes() * raster.height)
    fail(ErrorCode::kInternal, where, "the raster holds {} bytes for {}x{}x{}", raster.pixels.size(), raster.width,
         raster.height, raster.channels);
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = raster.width;
  image.height = raster.height;
  image.format = png_format(raster.channels);
  const auto stride = static_cast<png_int_32>(raster.row_bytes());
  png_alloc_size_t size = 0;
  // First call: the size the PNG needs; second: the bytes.
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, raster.pixels.data(), stride, nullptr) || size == 0)
    fail(ErrorCode::kInternal, where, "libpng could not size the PNG: {}", image.message);
  std::vector<std::uint8_t> bytes(size);
  if (!png_image_write_to_memory(&image, bytes.data(), &size, 0, raster.pixels.data(), stride, nullptr))
    fail(ErrorCode::kInternal, where, "libpng could not encode the PNG: {}", image.message);
  bytes.resize(size);
  png_image_free(&image);
  return bytes;
}

}  // namespace ogai::media
