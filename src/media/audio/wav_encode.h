// Encoding planar float audio as a WAV file in memory through libsndfile: 16-bit PCM (format
// tag 1, the canonical 44-byte header) or 32-bit IEEE float (format tag 3, with the `fact` chunk
// libsndfile writes; no PEAK chunk, so the bytes depend on the samples only).
// pcm_s16: each sample is clamped to [-1, 1]; -1 becomes -32768, anything else
// round(x * 32767) (the reference runtime's rule, so a full-scale signal never wraps).
// A non-finite sample is refused (ogai::Error kInvalidArgument naming `where`), as are channel
// counts outside 1..65535, a rate <= 0 and a data chunk over the RIFF 4 GiB limit.
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ogai::media::audio {

enum class PcmEncoding { kS16, kF32 };

// `planar` is [channels, frames].
std::vector<std::uint8_t> encode_wav(std::span<const float> planar, int channels, int sample_rate, PcmEncoding encoding,
                                     const std::string& where);

}  // namespace ogai::media::audio
