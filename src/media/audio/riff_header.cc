#include "media/audio/riff_header.h"

#include <cstring>

namespace ogai::media::audio {
namespace {

std::uint32_t u32(const std::uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | std::uint32_t{p[3]} << 24; }
std::uint16_t u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }

}  // namespace

std::optional<RiffDeclared> read_riff_header(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 12 || std::memcmp(bytes.data(), "RIFF", 4) != 0 || std::memcmp(bytes.data() + 8, "WAVE", 4) != 0)
    return std::nullopt;
  RiffDeclared out;
  bool have_fmt = false;
  std::uint64_t pos = 12;
  while (pos + 8 <= bytes.size()) {  // each chunk: 4-byte id, 4-byte size, payload padded to even
    const std::uint8_t* chunk = bytes.data() + pos;
    const std::uint64_t size = u32(chunk + 4);
    if (std::memcmp(chunk, "fmt ", 4) == 0 && size >= 16 && pos + 8 + 16 <= bytes.size()) {
      out.channels = u16(chunk + 10);
      out.sample_rate = u32(chunk + 12);
      out.bits_per_sample = u16(chunk + 22);
      have_fmt = true;
    } else if (std::memcmp(chunk, "data", 4) == 0) {
      if (!have_fmt) return std::nullopt;
      out.data_bytes = size;
      out.streaming_size = size == 0xFFFFFFFFu;
      const std::uint64_t available = bytes.size() - (pos + 8);
      out.data_present = size < available ? size : available;
      return out;
    }
    pos += 8 + size + (size & 1);
  }
  return std::nullopt;
}

}  // namespace ogai::media::audio
