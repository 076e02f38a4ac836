#include "media/media_limits.h"

namespace ogai::media {

ImageLimits image_limits(const MediaLimits& limits) {
  return {limits.max_media_bytes, limits.max_image_pixels, limits.max_decoded_bytes};
}

audio::DecodeLimits decode_limits(const MediaLimits& limits) {
  return {limits.max_audio_seconds, limits.max_decoded_bytes};
}

}  // namespace ogai::media
