// BMP through stb_image (Debian's libstb), the one Debian library with a small BMP reader (the
// others that read BMP pull in GTK's gdk-pixbuf, SDL or ImageMagick; docs/media.md). stb reads
// uncompressed 1/4/8/16/24/32-bit BMPs; RLE-compressed BMPs are refused. Only files that start
// with "BM" reach it (decode.cc), and the canvas is checked from stb's header probe first.
#include <stb_image.h>

#include <cstring>

#include "base/error.h"
#include "media/image/decoders.h"

namespace ogai::media {
namespace {

struct StbPixels {
  unsigned char* data = nullptr;
  ~StbPixels() { stbi_image_free(data); }
};

}  // namespace

Decoded decode_bmp(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits) {
  if (bytes.size() > 0x7fffffffu) fail(ErrorCode::kInvalidArgument, what, "the BMP file is over 2 GiB");
  const int size = static_cast<int>(bytes.size());
  int w = 0, h = 0, comp = 0;
  if (!stbi_info_from_memory(bytes.data(), size, &w, &h, &comp))
    fail(ErrorCode::kInvalidArgument, what, "not a readable BMP: {}", stbi_failure_reason());
  check_dimensions(static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(h), 4, limits, what, "BMP");
  StbPixels px;
  px.data = stbi_load_from_memory(bytes.data(), size, &w, &h, &comp, 0);
  if (!px.data)
    fail(ErrorCode::kInvalidArgument, what, "corrupt, truncated or unsupported BMP ({}x{}): {}", w, h,
         stbi_failure_reason());
  Decoded out;
  out.raster = make_raster(static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(comp));
  std::memcpy(out.raster.pixels.data(), px.data, out.raster.pixels.size());
  return out;
}

}  // namespace ogai::media
