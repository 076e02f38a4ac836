#include "cli/media_limit_flags.h"

namespace ogai::cli {

void add_media_limit_flags(CLI::App& cmd, media::MediaLimits& limits) {
  cmd.add_option("--max-media-parts", limits.max_media_parts, "most images and audio files one request may pass")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))->capture_default_str();
  cmd.add_option("--max-media-bytes", limits.max_media_bytes, "largest encoded image or audio file, in bytes")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32))->capture_default_str();
  add_decode_limit_flags(cmd, limits);
}

void add_decode_limit_flags(CLI::App& cmd, media::MediaLimits& limits) {
  cmd.add_option("--max-image-pixels", limits.max_image_pixels,
                 "largest image, width x height, read from its header before decoding (a decompression bomb is "
                 "refused without allocating it)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))->capture_default_str();
  cmd.add_option("--max-decoded-bytes", limits.max_decoded_bytes,
                 "most bytes one image or audio clip may decode to (pixels x channels; float32 samples x channels)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))->capture_default_str();
  cmd.add_option("--max-audio-seconds", limits.max_audio_seconds, "longest audio clip, from its header, in seconds")
      ->check(CLI::PositiveNumber)->capture_default_str();
}

}  // namespace ogai::cli
