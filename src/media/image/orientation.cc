#include "media/image/orientation.h"

#include <libexif/exif-data.h>

#include <cstring>
#include <vector>

namespace ogai::media {
namespace {

constexpr std::size_t kMaxExifBytes = 1u << 20;  // a JPEG APP1 segment is at most 64 KiB

struct ExifHandle {
  ExifData* data = nullptr;
  ~ExifHandle() {
    if (data) exif_data_unref(data);
  }
};

}  // namespace

int exif_orientation_tiff(std::span<const std::uint8_t> block) {
  if (block.size() < 8 || block.size() > kMaxExifBytes) return 1;
  static const std::uint8_t kHeader[6] = {'E', 'x', 'i', 'f', 0, 0};
  std::vector<std::uint8_t> buffer;
  if (std::memcmp(block.data(), kHeader, 6) != 0) {  // a bare TIFF block: libexif wants the header
    buffer.assign(kHeader, kHeader + 6);
    buffer.insert(buffer.end(), block.begin(), block.end());
    block = buffer;
  }
  ExifHandle exif;
  exif.data = exif_data_new();
  if (!exif.data) return 1;
  exif_data_unset_option(exif.data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);  // read, never rewrite
  exif_data_load_data(exif.data, block.data(), static_cast<unsigned int>(block.size()));
  ExifEntry* entry = exif_content_get_entry(exif.data->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
  if (!entry || entry->format != EXIF_FORMAT_SHORT || entry->components < 1 || entry->size < 2) return 1;
  const int value = exif_get_short(entry->data, exif_data_get_byte_order(exif.data));
  return value >= 1 && value <= 8 ? value : 1;
}

Raster apply_orientation(Raster in, int orientation) {
  if (orientation <= 1 || orientation > 8) return in;
  const std::uint32_t w = in.width, h = in.height, c = in.channels;
  const bool swap = orientation >= 5;
  Raster out = make_raster(swap ? h : w, swap ? w : h, c);
  for (std::uint32_t y = 0; y < out.height; ++y) {
    std::uint8_t* dst = out.row(y);
    for (std::uint32_t x = 0; x < out.width; ++x, dst += c) {
      std::uint32_t sx = x, sy = y;  // the source pixel of out(x, y)
      switch (orientation) {
        case 2: sx = w - 1 - x; break;                   // FLIP_LEFT_RIGHT
        case 3: sx = w - 1 - x, sy = h - 1 - y; break;   // ROTATE_180
        case 4: sy = h - 1 - y; break;                   // FLIP_TOP_BOTTOM
        case 5: sx = y, sy = x; break;                   // TRANSPOSE
        case 6: sx = y, sy = h - 1 - x; break;           // ROTATE_270
        case 7: sx = w - 1 - y, sy = h - 1 - x; break;   // TRANSVERSE
        case 8: sx = w - 1 - y, sy = x; break;           // ROTATE_90
      }
      std::memcpy(dst, in.row(sy) + static_cast<std::size_t>(sx) * c, c);
    }
  }
  return out;
}

}  // namespace ogai::media
