// Decoding an encoded audio file held in memory (WAV, FLAC, Ogg Vorbis, Ogg Opus, MP3) into a
// planar float Waveform through libsndfile (Debian's libsndfile1, which reads MP3 through
// libmpg123). Channels and the file's sample rate are kept; downmixing and resampling are
// separate operations (waveform_ops.h, resample.h).
//
// Budgets: the duration and the decoded size a file declares in its header are checked against
// DecodeLimits before any sample is decoded (for WAV the RIFF header itself is read, because
// libsndfile silently shortens a data chunk to the bytes present), and the decoded frame count
// is capped while reading, so a lying header cannot make the decoder allocate more than the
// limit. Empty input, zero-length audio, a truncated file, an unrecognised or unsupported format
// and a decoder error each throw ogai::Error(kInvalidArgument) whose `where` is the caller's
// name for the input. Pure function of its arguments; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "media/audio/waveform.h"

namespace ogai::media::audio {

struct DecodeLimits {
  double max_seconds = 3600.0;                     // longest accepted duration
  std::uint64_t max_decoded_bytes = 256ull << 20;  // float32 samples over all channels
};

Waveform decode_audio(std::span<const std::uint8_t> bytes, const std::string& name, const DecodeLimits& limits = {});

}  // namespace ogai::media::audio
