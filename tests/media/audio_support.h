// Test helpers for src/media/audio: synthetic signals and encoded files written through
// libsndfile into the build folder (never into the repository).
#pragma once

#include <sndfile.h>

#include <cmath>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

namespace ogai::media::audio::test {

// amplitude * sin(2 pi f t), `frames` samples at `rate` Hz.
inline std::vector<float> sine(int rate, double hz, std::size_t frames, double amplitude = 0.5) {
  std::vector<float> out(frames);
  for (std::size_t i = 0; i < frames; ++i)
    out[i] = static_cast<float>(amplitude * std::sin(2.0 * std::numbers::pi * hz * static_cast<double>(i) / rate));
  return out;
}

inline double rms(const std::vector<float>& x, std::size_t from = 0, std::size_t to = 0) {
  if (to == 0) to = x.size();
  double s = 0;
  for (std::size_t i = from; i < to; ++i) s += double{x[i]} * x[i];
  return std::sqrt(s / static_cast<double>(to - from));
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::path(OGAI_BINARY_DIR) / "test_media" / name;
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Encodes interleaved `samples` with libsndfile's `format` into a file and returns its bytes.
inline std::vector<std::uint8_t> encode_file(const std::filesystem::path& path, int format, int rate, int channels,
                                             const std::vector<float>& interleaved) {
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = channels;
  info.format = format;
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  if (!f) return {};
  sf_writef_float(f, interleaved.data(), static_cast<sf_count_t>(interleaved.size() / channels));
  sf_close(f);
  return read_bytes(path);
}

}  // namespace ogai::media::audio::test

namespace ogai::media::audio::test {

inline std::vector<float> read_floats(const std::filesystem::path& path) {
  const auto bytes = read_bytes(path);
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

}  // namespace ogai::media::audio::test
