// The budgets on the media one request carries, as one struct: what the image decoder
// (image/limits.h), the audio decoder (audio/decode.h) and a request's count of media files read.
// `ogai run` exposes every field as a flag (named beside it; cli/media_limit_flags.h), and errors
// name the flag. The defaults are safe for a server. Plain struct and two conversions; no I/O.
#pragma once

#include <cstddef>
#include <cstdint>

#include "media/audio/decode.h"
#include "media/image/limits.h"

namespace ogai::media {

struct MediaLimits {
  std::size_t max_media_parts = 32;                // --max-media-parts: images and audio clips in one request
  std::uint64_t max_media_bytes = 20ull << 20;     // --max-media-bytes: one encoded file
  std::uint64_t max_image_pixels = 50'000'000;     // --max-image-pixels: width x height of one image
  std::uint64_t max_decoded_bytes = 256ull << 20;  // --max-decoded-bytes: one image's or clip's decoded samples
  double max_audio_seconds = 3600;                 // --max-audio-seconds: one clip's duration
};

ImageLimits image_limits(const MediaLimits& limits);
audio::DecodeLimits decode_limits(const MediaLimits& limits);

}  // namespace ogai::media
