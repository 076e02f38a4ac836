// A WAV (RIFF/WAVE, RF64 not included) header reader that looks only at chunk headers: it finds
// the `fmt ` and `data` chunks and reports what the header declares, so a caller can refuse a
// declared length (a 10-hour header, a data chunk larger than the bytes present) before any
// sample is decoded. It does not decode samples (libsndfile does, decode.h). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace ogai::media::audio {

struct RiffDeclared {
  std::uint64_t data_bytes = 0;     // the data chunk's declared size
  std::uint64_t data_present = 0;   // bytes of it the buffer holds
  std::uint32_t sample_rate = 0;
  std::uint16_t channels = 0, bits_per_sample = 0;
  bool streaming_size = false;      // data size 0xFFFFFFFF: "unknown, read to the end"
};

// The declared facts of a RIFF/WAVE buffer, or nullopt when `bytes` is not one (another format,
// or no `fmt `/`data` chunk reachable within the buffer).
std::optional<RiffDeclared> read_riff_header(std::span<const std::uint8_t> bytes);

}  // namespace ogai::media::audio
