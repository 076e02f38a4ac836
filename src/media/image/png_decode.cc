// PNG through libpng's classic API. libpng reports errors by longjmp: the two functions that
// set a jump point (read_header, read_rows) hold only plain data, so no C++ object is skipped.
#include <png.h>

#include <csetjmp>
#include <cstring>
#include <vector>

#include "base/error.h"
#include "media/image/decoders.h"
#include "media/image/orientation.h"

namespace ogai::media {
namespace {

struct PngSource {
  const std::uint8_t* data;
  std::size_t size, offset;
  char error[200];
};

void on_error(png_structp png, png_const_charp message) {
  auto* src = static_cast<PngSource*>(png_get_error_ptr(png));
  std::snprintf(src->error, sizeof src->error, "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

void on_read(png_structp png, png_bytep out, png_size_t n) {
  auto* src = static_cast<PngSource*>(png_get_io_ptr(png));
  if (src->size - src->offset < n) png_error(png, "the file is truncated (the data ends inside a chunk)");
  std::memcpy(out, src->data + src->offset, n);
  src->offset += n;
}

struct Header {
  png_uint_32 width = 0, height = 0;
  int channels = 0;
  std::uint32_t exif_size = 0;
  const std::uint8_t* exif = nullptr;  // owned by libpng
};

// Reads the header and sets Pillow's conversions. Returns false on a libpng error.
bool read_header(png_structp png, png_infop info, Header* h) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_info(png, info);
  const int color = png_get_color_type(png, info);
  const int depth = png_get_bit_depth(png, info);
  if (depth == 16) png_set_strip_16(png);  // the high byte, as Pillow's ;16B raw modes
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (color == PNG_COLOR_TYPE_PALETTE && png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  h->width = png_get_image_width(png, info);
  h->height = png_get_image_height(png, info);
  h->channels = png_get_channels(png, info);
#ifdef PNG_eXIf_SUPPORTED
  png_bytep exif = nullptr;
  png_uint_32 exif_size = 0;
  if (png_get_eXIf_1(png, info, &exif_size, &exif) != 0) h->exif = exif, h->exif_size = exif_size;
#endif
  return true;
}

bool read_rows(png_structp png, png_infop info, png_bytep* rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  return true;
}

struct PngHandles {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngHandles() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};

}  // namespace

Decoded decode_png(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits) {
  PngSource src{bytes.data(), bytes.size(), 0, {}};
  PngHandles h;
  h.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, on_error, on_warning);
  if (!h.png) fail(ErrorCode::kRuntime, what, "libpng could not start");
  h.info = png_create_info_struct(h.png);
  if (!h.info) fail(ErrorCode::kRuntime, what, "libpng could not start");
  png_set_read_fn(h.png, &src, on_read);
  // libpng's own guards beside ours: canvas and the size of one (decompressed) ancillary chunk.
  png_set_user_limits(h.png, 0x7fffffff, 0x7fffffff);
  png_set_chunk_malloc_max(h.png, 16u << 20);
  Header header;
  if (!read_header(h.png, h.info, &header)) fail(ErrorCode::kInvalidArgument, what, "not a readable PNG: {}", src.error);
  check_dimensions(header.width, header.height, static_cast<std::uint64_t>(header.channels), limits, what, "PNG");
  Decoded out;
  out.raster = make_raster(header.width, header.height, static_cast<std::uint32_t>(header.channels));
  if (header.exif) out.orientation = exif_orientation_tiff(std::span(header.exif, header.exif_size));
  std::vector<png_bytep> rows(header.height);
  for (png_uint_32 y = 0; y < header.height; ++y) rows[y] = out.raster.row(y);
  if (!read_rows(h.png, h.info, rows.data()))
    fail(ErrorCode::kInvalidArgument, what, "corrupt or truncated PNG ({}x{}): {}", header.width, header.height, src.error);
  return out;
}

}  // namespace ogai::media
