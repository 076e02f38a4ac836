// JPEG through libjpeg-turbo with its default (Pillow's) settings: islow DCT, fancy upsampling.
// Errors longjmp to read_header / read_pixels, which hold only plain data. A premature end of
// the data (libjpeg's JWRN_JPEG_EOF warning, after which it would pad the image with grey) is an
// error here, as in Pillow without LOAD_TRUNCATED_IMAGES; so is corrupt entropy-coded data
// (a marker inside the scan, a bad Huffman code, a lost restart), which Pillow lets through as
// grey: a model should not see an image that is not the one sent.
#include <cstdio>  // jpeglib.h needs FILE

#include <jpeglib.h>
#include <jerror.h>

#include <csetjmp>
#include <cstring>
#include <vector>

#include "base/error.h"
#include "media/image/decoders.h"
#include "media/image/orientation.h"

namespace ogai::media {
namespace {

struct ErrorState {
  jpeg_error_mgr mgr;  // first: libjpeg hands back a pointer to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr cinfo) {
  auto* state = reinterpret_cast<ErrorState*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, state->message);
  std::longjmp(state->jump, 1);
}

// Warnings that mean the scan's pixels are wrong (libjpeg would fill the rest with grey) are
// errors; harmless ones (extraneous bytes between markers, an unknown APPn) are ignored.
void on_message(j_common_ptr cinfo, int level) {
  if (level != -1) return;
  const int code = cinfo->err->msg_code;
  if (code != JWRN_JPEG_EOF && code != JWRN_HIT_MARKER && code != JWRN_MUST_RESYNC && code != JWRN_HUFF_BAD_CODE &&
      code != JWRN_NOT_SEQUENTIAL)
    return;
  auto* state = reinterpret_cast<ErrorState*>(cinfo->err);
  if (code == JWRN_JPEG_EOF)
    std::snprintf(state->message, sizeof state->message, "the file is truncated (the data ends inside the scan)");
  else
    (*cinfo->err->format_message)(cinfo, state->message);
  std::longjmp(state->jump, 1);
}

struct Header {
  JDIMENSION width = 0, height = 0;
  int channels = 0;
  bool cmyk = false;
  const std::uint8_t* exif = nullptr;  // the first Exif APP1 payload, owned by libjpeg
  unsigned exif_size = 0;
};

bool read_header(jpeg_decompress_struct* cinfo, ErrorState* err, std::span<const std::uint8_t> bytes,
                 std::uint64_t max_memory, Header* h) {
  if (setjmp(err->jump)) return false;
  jpeg_create_decompress(cinfo);
  cinfo->mem->max_memory_to_use = static_cast<long>(max_memory);
  jpeg_mem_src(cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xffff);
  jpeg_read_header(cinfo, TRUE);
  switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE: cinfo->out_color_space = JCS_GRAYSCALE; break;
    case JCS_CMYK:
    case JCS_YCCK: cinfo->out_color_space = JCS_CMYK; break;
    default: cinfo->out_color_space = JCS_RGB; break;
  }
  h->width = cinfo->image_width;
  h->height = cinfo->image_height;
  h->cmyk = cinfo->out_color_space == JCS_CMYK;
  h->channels = cinfo->out_color_space == JCS_GRAYSCALE ? 1 : h->cmyk ? 4 : 3;
  for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next)
    if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && std::memcmp(m->data, "Exif\0\0", 6) == 0) {
      h->exif = m->data, h->exif_size = m->data_length;
      break;
    }
  return true;
}

bool read_pixels(jpeg_decompress_struct* cinfo, ErrorState* err, std::uint8_t* out, std::size_t row_bytes) {
  if (setjmp(err->jump)) return false;
  jpeg_start_decompress(cinfo);
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = out + static_cast<std::size_t>(cinfo->output_scanline) * row_bytes;
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

// Pillow's CMYK;I raw mode (Adobe's inverted samples) followed by its CMYK -> RGB conversion.
Raster cmyk_to_rgb(const Raster& cmyk) {
  Raster rgb = make_raster(cmyk.width, cmyk.height, 3);
  const std::size_t n = static_cast<std::size_t>(cmyk.width) * cmyk.height;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t* s = &cmyk.pixels[i * 4];
    const int nk = s[3];  // 255 - k, k = 255 - stored
    for (int ch = 0; ch < 3; ++ch) {
      const int c = 255 - s[ch];
      const int t = c * nk + 128;
      const int v = nk - (((t >> 8) + t) >> 8);
      rgb.pixels[i * 3 + ch] = static_cast<std::uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
  return rgb;
}

struct JpegHandle {
  jpeg_decompress_struct cinfo{};
  ~JpegHandle() { jpeg_destroy_decompress(&cinfo); }
};

}  // namespace

Decoded decode_jpeg(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits) {
  JpegHandle h;
  ErrorState err{};
  h.cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = on_error;
  err.mgr.emit_message = on_message;
  Header header;
  // libjpeg's own allocation ceiling: a progressive file buffers its coefficients (2 bytes each).
  if (!read_header(&h.cinfo, &err, bytes, limits.max_decoded_bytes * 3, &header))
    fail(ErrorCode::kInvalidArgument, what, "not a readable JPEG: {}", err.message);
  check_dimensions(header.width, header.height, static_cast<std::uint64_t>(header.channels), limits, what, "JPEG");
  Decoded out;
  if (header.exif) out.orientation = exif_orientation_tiff(std::span(header.exif, header.exif_size));
  Raster raster = make_raster(header.width, header.height, static_cast<std::uint32_t>(header.channels));
  if (!read_pixels(&h.cinfo, &err, raster.pixels.data(), raster.row_bytes()))
    fail(ErrorCode::kInvalidArgument, what, "corrupt or truncated JPEG ({}x{}): {}", header.width, header.height,
         err.message);
  out.raster = header.cmyk ? cmyk_to_rgb(raster) : std::move(raster);
  return out;
}

}  // namespace ogai::media
