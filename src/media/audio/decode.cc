#include "media/audio/decode.h"

#include <sndfile.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "base/error.h"
#include "media/audio/ogg_vorbis_check.h"
#include "media/audio/riff_header.h"

namespace ogai::media::audio {
namespace {

constexpr const char* kAccepted = "WAV, FLAC, Ogg Vorbis, Ogg Opus or MP3";

// libsndfile's virtual I/O over a read-only memory span.
struct MemoryFile {
  std::span<const std::uint8_t> bytes;
  sf_count_t pos = 0;
};

sf_count_t mem_length(void* user) { return static_cast<sf_count_t>(static_cast<MemoryFile*>(user)->bytes.size()); }
sf_count_t mem_tell(void* user) { return static_cast<MemoryFile*>(user)->pos; }
sf_count_t mem_write(const void*, sf_count_t, void*) { return 0; }

sf_count_t mem_seek(sf_count_t offset, int whence, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  const sf_count_t size = static_cast<sf_count_t>(f->bytes.size());
  const sf_count_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? f->pos : size;
  f->pos = std::clamp<sf_count_t>(base + offset, 0, size);
  return f->pos;
}

sf_count_t mem_read(void* out, sf_count_t count, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  const sf_count_t n = std::min<sf_count_t>(count, static_cast<sf_count_t>(f->bytes.size()) - f->pos);
  if (n <= 0) return 0;
  std::memcpy(out, f->bytes.data() + f->pos, static_cast<std::size_t>(n));
  f->pos += n;
  return n;
}

struct SndfileCloser {
  void operator()(SNDFILE* f) const { sf_close(f); }
};
using Sndfile = std::unique_ptr<SNDFILE, SndfileCloser>;

// The most frames the limits allow for this rate and channel count.
std::uint64_t frame_budget(const DecodeLimits& limits, int rate, int channels) {
  const double by_time = limits.max_seconds * rate;
  const std::uint64_t by_bytes = limits.max_decoded_bytes / (sizeof(float) * static_cast<std::uint64_t>(channels));
  return std::min<std::uint64_t>(by_bytes, by_time >= 1e18 ? std::numeric_limits<std::uint64_t>::max()
                                                           : static_cast<std::uint64_t>(by_time));
}

void check_declared(std::uint64_t frames, int rate, int channels, const DecodeLimits& limits, const std::string& name) {
  if (frames <= frame_budget(limits, rate, channels)) return;
  fail(ErrorCode::kInvalidArgument, name,
       "the audio header declares {} frames ({:.1f} s at {} Hz, {} channel(s), {} bytes decoded); the limits are "
       "{} s (--max-audio-seconds) and {} decoded bytes (--max-decoded-bytes)",
       frames, static_cast<double>(frames) / rate, rate, channels, frames * channels * sizeof(float), limits.max_seconds,
       limits.max_decoded_bytes);
}

// A WAV header is checked before libsndfile opens the file (which would shorten a lying header).
void check_riff(std::span<const std::uint8_t> bytes, const DecodeLimits& limits, const std::string& name) {
  const auto riff = read_riff_header(bytes);
  if (!riff || riff->streaming_size || riff->channels == 0 || riff->sample_rate == 0 || riff->bits_per_sample == 0)
    return;  // not WAV, or nothing declared to check: libsndfile reports what it finds
  const std::uint64_t frame_bytes = std::uint64_t{riff->channels} * ((riff->bits_per_sample + 7) / 8);
  check_declared(riff->data_bytes / frame_bytes, static_cast<int>(riff->sample_rate), riff->channels, limits, name);
  if (riff->data_present < riff->data_bytes)
    fail(ErrorCode::kInvalidArgument, name,
         "the WAV file is truncated: its data chunk declares {} bytes, the input holds {} of them", riff->data_bytes,
         riff->data_present);
}

Sndfile open(MemoryFile& file, SF_INFO& info, const std::string& name) {
  static SF_VIRTUAL_IO io{mem_length, mem_seek, mem_read, mem_write, mem_tell};
  SNDFILE* f = sf_open_virtual(&io, SFM_READ, &info, &file);
  if (!f)
    fail(ErrorCode::kInvalidArgument, name, "cannot decode the audio ({}); expected {}", sf_strerror(nullptr),
         kAccepted);
  Sndfile handle(f);
  const int major = info.format & SF_FORMAT_TYPEMASK;
  if (major != SF_FORMAT_WAV && major != SF_FORMAT_WAVEX && major != SF_FORMAT_FLAC && major != SF_FORMAT_OGG &&
      major != SF_FORMAT_MPEG)
    fail(ErrorCode::kInvalidArgument, name, "the audio is in a container ogai does not accept (libsndfile format {:#x}); "
         "expected {}", major, kAccepted);
  if (info.channels < 1 || info.samplerate < 1)
    fail(ErrorCode::kInvalidArgument, name, "the audio declares {} channel(s) at {} Hz", info.channels, info.samplerate);
  return handle;
}

// Reads at most `budget` frames, interleaved; one frame past the budget is an error.
std::vector<float> read_frames(SNDFILE* f, const SF_INFO& info, std::uint64_t budget, const DecodeLimits& limits,
                               const std::string& name) {
  constexpr sf_count_t kChunk = 1 << 16;
  std::vector<float> interleaved;
  std::uint64_t total = 0;
  for (;;) {
    interleaved.resize((total + kChunk) * info.channels);
    const sf_count_t got = sf_readf_float(f, interleaved.data() + total * info.channels, kChunk);
    if (got <= 0) break;
    total += static_cast<std::uint64_t>(got);
    if (total > budget)
      fail(ErrorCode::kInvalidArgument, name, "the audio decodes to more than {} frames at {} Hz; the limits are {} s "
           "(--max-audio-seconds) and {} decoded bytes (--max-decoded-bytes)",
           budget, info.samplerate, limits.max_seconds, limits.max_decoded_bytes);
  }
  if (sf_error(f) != SF_ERR_NO_ERROR)
    fail(ErrorCode::kInvalidArgument, name, "the audio is corrupt: {}", sf_strerror(f));
  interleaved.resize(total * info.channels);
  return interleaved;
}

Waveform planar(const std::vector<float>& interleaved, const SF_INFO& info) {
  Waveform w{info.samplerate, info.channels, std::vector<float>(interleaved.size())};
  const std::size_t frames = w.frames();
  for (std::size_t i = 0; i < frames; ++i)
    for (int c = 0; c < info.channels; ++c) w.samples[c * frames + i] = interleaved[i * info.channels + c];
  return w;
}

}  // namespace

Waveform decode_audio(std::span<const std::uint8_t> bytes, const std::string& name, const DecodeLimits& limits) {
  if (bytes.empty()) fail(ErrorCode::kInvalidArgument, name, "the audio input is empty (0 bytes); expected {}", kAccepted);
  check_riff(bytes, limits, name);
  check_ogg_vorbis_headers(bytes, name);
  MemoryFile file{bytes};
  SF_INFO info{};
  Sndfile f = open(file, info, name);
  const bool exact_length = (info.format & SF_FORMAT_TYPEMASK) != SF_FORMAT_MPEG;  // MP3 lengths are estimates
  if (info.frames != SF_COUNT_MAX && info.frames > 0 && exact_length)
    check_declared(static_cast<std::uint64_t>(info.frames), info.samplerate, info.channels, limits, name);
  const std::uint64_t budget = frame_budget(limits, info.samplerate, info.channels);
  const auto interleaved = read_frames(f.get(), info, budget, limits, name);
  const auto got = static_cast<sf_count_t>(interleaved.size() / info.channels);
  if (got == 0) fail(ErrorCode::kInvalidArgument, name, "the audio holds no samples (zero-length audio)");
  if (exact_length && info.frames != SF_COUNT_MAX && got < info.frames)
    fail(ErrorCode::kInvalidArgument, name, "the audio is truncated: its header declares {} frames, {} decode",
         info.frames, got);
  return planar(interleaved, info);
}

}  // namespace ogai::media::audio
