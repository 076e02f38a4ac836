// GIF through giflib, first frame only, composed as Pillow composes frame 0: a canvas of the
// logical screen (grown to the frame's extent), filled with the transparent index when the
// frame's graphic control extension names one (else index 0), the frame's indices placed at its
// offset, then mapped through the local (else global) colour table to RGB; without any colour
// table the indices are grey levels (Pillow's mode L). Records after the first image are not read.
#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/error.h"
#include "media/image/decoders.h"

namespace ogai::media {
namespace {

struct Source {
  std::span<const std::uint8_t> bytes;
  std::size_t offset = 0;
};

int on_read(GifFileType* gif, GifByteType* out, int n) {
  auto* src = static_cast<Source*>(gif->UserData);
  const std::size_t take = std::min<std::size_t>(static_cast<std::size_t>(n), src->bytes.size() - src->offset);
  std::memcpy(out, src->bytes.data() + src->offset, take);
  src->offset += take;
  return static_cast<int>(take);
}

struct GifHandle {
  GifFileType* gif = nullptr;
  ~GifHandle() {
    int err = 0;
    if (gif) DGifCloseFile(gif, &err);
  }
};

[[noreturn]] void corrupt(const std::string& what, const GifFileType* gif, const char* stage) {
  const char* reason = gif ? GifErrorString(gif->Error) : nullptr;
  fail(ErrorCode::kInvalidArgument, what, "corrupt or truncated GIF ({}): {}", stage, reason ? reason : "unreadable");
}

// Reads extension records up to the first image descriptor; returns the transparent index or -1.
int skip_to_image(GifFileType* gif, const std::string& what) {
  int transparent = -1;
  for (;;) {
    GifRecordType type;
    if (DGifGetRecordType(gif, &type) == GIF_ERROR) corrupt(what, gif, "reading a record");
    if (type == IMAGE_DESC_RECORD_TYPE) return transparent;
    if (type == TERMINATE_RECORD_TYPE) fail(ErrorCode::kInvalidArgument, what, "the GIF holds no image");
    if (type != EXTENSION_RECORD_TYPE) corrupt(what, gif, "an unknown record");
    int code = 0;
    GifByteType* ext = nullptr;
    if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) corrupt(what, gif, "an extension");
    if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4) transparent = (ext[1] & 1) ? ext[4] : -1;
    while (ext)
      if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) corrupt(what, gif, "an extension");
  }
}

}  // namespace

Decoded decode_gif(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits) {
  Source src{bytes};
  GifHandle h;
  int err = 0;
  h.gif = DGifOpen(&src, on_read, &err);
  if (!h.gif) {
    const char* reason = GifErrorString(err);
    fail(ErrorCode::kInvalidArgument, what, "not a readable GIF: {}", reason ? reason : "bad header");
  }
  GifFileType* gif = h.gif;
  const int transparent = skip_to_image(gif, what);
  if (DGifGetImageDesc(gif) == GIF_ERROR) corrupt(what, gif, "the image descriptor");
  const GifImageDesc& d = gif->Image;
  if (d.Width <= 0 || d.Height <= 0 || d.Left < 0 || d.Top < 0) corrupt(what, gif, "the frame's extent");
  const std::uint64_t width = std::max<std::uint64_t>(static_cast<std::uint64_t>(gif->SWidth), d.Left + d.Width);
  const std::uint64_t height = std::max<std::uint64_t>(static_cast<std::uint64_t>(gif->SHeight), d.Top + d.Height);
  check_dimensions(width, height, 4, limits, what, "GIF");  // indices + the RGB result
  std::vector<std::uint8_t> indices(width * height, static_cast<std::uint8_t>(transparent >= 0 ? transparent : 0));
  const std::size_t fw = static_cast<std::size_t>(d.Width);
  auto read_line = [&](std::size_t y) {
    if (DGifGetLine(gif, indices.data() + (d.Top + y) * width + d.Left, static_cast<int>(fw)) == GIF_ERROR)
      corrupt(what, gif, "the frame's pixels");
  };
  if (d.Interlace) {
    static const int kStart[4] = {0, 4, 2, 1}, kStep[4] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; ++pass)
      for (int y = kStart[pass]; y < d.Height; y += kStep[pass]) read_line(static_cast<std::size_t>(y));
  } else {
    for (int y = 0; y < d.Height; ++y) read_line(static_cast<std::size_t>(y));
  }
  const ColorMapObject* map = d.ColorMap ? d.ColorMap : gif->SColorMap;
  Decoded out;
  out.raster = make_raster(static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height), 3);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const int index = indices[i];
    std::uint8_t* px = &out.raster.pixels[i * 3];
    if (map && index < map->ColorCount) {
      px[0] = map->Colors[index].Red, px[1] = map->Colors[index].Green, px[2] = map->Colors[index].Blue;
    } else if (map) {
      px[0] = px[1] = px[2] = 0;  // an index past the table
    } else {
      px[0] = px[1] = px[2] = static_cast<std::uint8_t>(index);
    }
  }
  return out;
}

}  // namespace ogai::media
