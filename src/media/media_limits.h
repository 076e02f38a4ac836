// The budgets on the media one request carries, as one struct (ogai::MediaLimits): what the image decoder
// (image/limits.h), the audio decoder (audio/decode.h) and a request's count of media files read.
// run, generate, chat and serve expose every field as a flag (named beside it; cli/media_limit_flags.h), and errors
// name the flag. The defaults are safe for a server. Plain struct and two conversions; no I/O.
#pragma once

#include <cstddef>
#include <cstdint>

#include "media/audio/decode.h"
#include "media/image/limits.h"
#include "ogai/media.h"

namespace ogai::media {

// The public struct (include/ogai/media.h: LoadOptions::media_limits), one definition for both.
using MediaLimits = ogai::MediaLimits;

ImageLimits image_limits(const MediaLimits& limits);
audio::DecodeLimits decode_limits(const MediaLimits& limits);

}  // namespace ogai::media
