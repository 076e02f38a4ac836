#include "media/audio/wav_encode.h"

#include <sndfile.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/error.h"

namespace ogai::media::audio {
namespace {

// libsndfile's virtual I/O over a growing byte vector.
struct MemorySink {
  std::vector<std::uint8_t> bytes;
  sf_count_t pos = 0;
};

sf_count_t sink_length(void* user) { return static_cast<sf_count_t>(static_cast<MemorySink*>(user)->bytes.size()); }
sf_count_t sink_tell(void* user) { return static_cast<MemorySink*>(user)->pos; }

sf_count_t sink_seek(sf_count_t offset, int whence, void* user) {
  auto* s = static_cast<MemorySink*>(user);
  const sf_count_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? s->pos : static_cast<sf_count_t>(s->bytes.size());
  s->pos = std::max<sf_count_t>(0, base + offset);
  return s->pos;
}

sf_count_t sink_read(void* out, sf_count_t count, void* user) {
  auto* s = static_cast<MemorySink*>(user);
  const sf_count_t n = std::min<sf_count_t>(count, static_cast<sf_count_t>(s->bytes.size()) - s->pos);
  if (n <= 0) return 0;
  std::memcpy(out, s->bytes.data() + s->pos, static_cast<std::size_t>(n));
  s->pos += n;
  return n;
}

sf_count_t sink_write(const void* in, sf_count_t count, void* user) {
  auto* s = static_cast<MemorySink*>(user);
  const auto end = static_cast<std::size_t>(s->pos + count);
  if (end > s->bytes.size()) s->bytes.resize(end);
  std::memcpy(s->bytes.data() + s->pos, in, static_cast<std::size_t>(count));
  s->pos += count;
  return count;
}

std::int16_t to_s16(float v) {
  const float c = std::clamp(v, -1.0f, 1.0f);
  return c <= -1.0f ? std::int16_t{-32768} : static_cast<std::int16_t>(std::lround(c * 32767.0f));
}

void check(std::span<const float> planar, int channels, int rate, PcmEncoding encoding, const std::string& where) {
  if (channels < 1 || channels > 65535 || rate < 1)
    fail(ErrorCode::kInvalidArgument, where, "a WAV needs 1..65535 channels and a positive rate (got {} channel(s), {} Hz)",
         channels, rate);
  if (planar.size() % static_cast<std::size_t>(channels) != 0)
    fail(ErrorCode::kInvalidArgument, where, "{} samples do not divide into {} channels", planar.size(), channels);
  const std::size_t bytes = planar.size() * (encoding == PcmEncoding::kS16 ? 2 : 4);
  if (bytes > 0xFFFFFFFFull - 4096)
    fail(ErrorCode::kInvalidArgument, where, "{} bytes of samples exceed the 4 GiB a WAV file can hold", bytes);
  for (std::size_t i = 0; i < planar.size(); ++i)
    if (!std::isfinite(planar[i]))
      fail(ErrorCode::kInvalidArgument, where, "sample {} (channel {}) is not finite ({}); a WAV cannot carry it",
           i % (planar.size() / channels), i / (planar.size() / channels), planar[i]);
}

}  // namespace

std::vector<std::uint8_t> encode_wav(std::span<const float> planar, int channels, int rate, PcmEncoding encoding,
                                     const std::string& where) {
  check(planar, channels, rate, encoding, where);
  const std::size_t frames = planar.size() / static_cast<std::size_t>(channels);
  SF_VIRTUAL_IO io{sink_length, sink_seek, sink_read, sink_write, sink_tell};
  MemorySink sink;
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = channels;
  info.format = SF_FORMAT_WAV | (encoding == PcmEncoding::kS16 ? SF_FORMAT_PCM_16 : SF_FORMAT_FLOAT);
  SNDFILE* f = sf_open_virtual(&io, SFM_WRITE, &info, &sink);
  if (!f) fail(ErrorCode::kRuntime, where, "libsndfile cannot write a WAV: {}", sf_strerror(nullptr));
  sf_command(f, SFC_SET_ADD_PEAK_CHUNK, nullptr, SF_FALSE);
  sf_count_t written = 0;
  if (encoding == PcmEncoding::kS16) {
    std::vector<std::int16_t> inter(planar.size());
    for (std::size_t i = 0; i < frames; ++i)
      for (int c = 0; c < channels; ++c) inter[i * channels + c] = to_s16(planar[c * frames + i]);
    written = sf_writef_short(f, inter.data(), static_cast<sf_count_t>(frames));
  } else {
    std::vector<float> inter(planar.size());
    for (std::size_t i = 0; i < frames; ++i)
      for (int c = 0; c < channels; ++c) inter[i * channels + c] = planar[c * frames + i];
    written = sf_writef_float(f, inter.data(), static_cast<sf_count_t>(frames));
  }
  const std::string err = sf_strerror(f);
  sf_close(f);
  if (written != static_cast<sf_count_t>(frames))
    fail(ErrorCode::kRuntime, where, "libsndfile wrote {} of {} frames: {}", written, frames, err);
  return std::move(sink.bytes);
}

}  // namespace ogai::media::audio
