// WebP through libwebp's animation decoder (libwebpdemux), as Pillow reads every WebP: the first
// frame's full canvas, RGBA, non-premultiplied; RGB when the file declares no alpha.
#include <webp/decode.h>
#include <webp/demux.h>

#include "base/error.h"
#include "media/image/decoders.h"
#include "media/image/orientation.h"

namespace ogai::media {
namespace {

const char* status_text(VP8StatusCode status) {
  switch (status) {
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the file is truncated";
    case VP8_STATUS_BITSTREAM_ERROR: return "the bitstream is corrupt";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "it uses an unsupported feature";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    default: return "the header is invalid";
  }
}

struct AnimHandle {
  WebPAnimDecoder* dec = nullptr;
  ~AnimHandle() { WebPAnimDecoderDelete(dec); }
};

struct DemuxHandle {
  WebPDemuxer* demux = nullptr;
  ~DemuxHandle() { WebPDemuxDelete(demux); }
};

int orientation_of(const WebPData& data) {
  DemuxHandle d;
  d.demux = WebPDemux(&data);
  if (!d.demux) return 1;
  WebPChunkIterator it;
  int orientation = 1;
  if (WebPDemuxGetChunk(d.demux, "EXIF", 1, &it)) {
    orientation = exif_orientation_tiff(std::span(it.chunk.bytes, it.chunk.size));
    WebPDemuxReleaseChunkIterator(&it);
  }
  return orientation;
}

}  // namespace

Decoded decode_webp(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits) {
  WebPBitstreamFeatures features;
  const VP8StatusCode status = WebPGetFeatures(bytes.data(), bytes.size(), &features);
  if (status != VP8_STATUS_OK) fail(ErrorCode::kInvalidArgument, what, "not a readable WebP: {}", status_text(status));
  const std::uint32_t channels = features.has_alpha ? 4 : 3;
  // The decoder holds the RGBA canvas whatever the output: budget 4 bytes a pixel.
  check_dimensions(static_cast<std::uint64_t>(features.width), static_cast<std::uint64_t>(features.height), 4, limits,
                   what, "WebP");
  const WebPData data{bytes.data(), bytes.size()};
  WebPAnimDecoderOptions options;
  WebPAnimDecoderOptionsInit(&options);
  options.color_mode = MODE_RGBA;
  options.use_threads = 0;
  AnimHandle h;
  h.dec = WebPAnimDecoderNew(&data, &options);
  if (!h.dec) fail(ErrorCode::kInvalidArgument, what, "not a readable WebP: the container is corrupt or truncated");
  WebPAnimInfo info;
  if (!WebPAnimDecoderGetInfo(h.dec, &info) || info.canvas_width != static_cast<std::uint32_t>(features.width) ||
      info.canvas_height != static_cast<std::uint32_t>(features.height))
    fail(ErrorCode::kInvalidArgument, what, "not a readable WebP: the canvas disagrees with the header");
  std::uint8_t* rgba = nullptr;
  int timestamp = 0;
  if (!WebPAnimDecoderGetNext(h.dec, &rgba, &timestamp) || !rgba)
    fail(ErrorCode::kInvalidArgument, what, "corrupt or truncated WebP ({}x{}): the first frame does not decode",
         features.width, features.height);
  Decoded out;
  out.raster = make_raster(info.canvas_width, info.canvas_height, channels);
  const std::size_t n = static_cast<std::size_t>(info.canvas_width) * info.canvas_height;
  for (std::size_t i = 0; i < n; ++i)
    for (std::uint32_t c = 0; c < channels; ++c) out.raster.pixels[i * channels + c] = rgba[i * 4 + c];
  out.orientation = orientation_of(data);
  return out;
}

}  // namespace ogai::media
