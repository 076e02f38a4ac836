// A command-line probe over src/media/audio for tests/media/audio_hf_features.cjs (the
// differential test against Hugging Face's feature extractors in transformers.js):
//   audio_features_probe encode FORMAT RATE CHANNELS IN.f32 OUT   FORMAT: wav_f32, wav_s16, flac, mp3;
//       IN.f32 holds interleaved float32 samples; writes OUT through libsndfile.
//   audio_features_probe run PROGRAM.json FILE OUTDIR
//       runs the preprocessing.audio program (JSON) on FILE's bytes; writes OUTDIR/<i>.bin per
//       output (float32 or int64, little-endian) and prints one JSON line per output
//       {"index", "name", "integer", "shape"}.
// Exit status 0 on success; an ogai::Error prints "error: <where>: <message>" and exits 2.
#include <sndfile.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "media/audio/program.h"
#include "ogai/error.h"

namespace {

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int encode(const std::string& format, int rate, int channels, const std::string& in, const std::string& out) {
  const auto bytes = read_file(in);
  std::vector<float> samples(bytes.size() / sizeof(float));
  std::memcpy(samples.data(), bytes.data(), samples.size() * sizeof(float));
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = channels;
  if (format == "wav_f32") info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  else if (format == "wav_s16") info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  else if (format == "flac") info.format = SF_FORMAT_FLAC | SF_FORMAT_PCM_16;
  else if (format == "mp3") info.format = SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III;
  else return std::fprintf(stderr, "unknown format %s\n", format.c_str()), 1;
  SNDFILE* f = sf_open(out.c_str(), SFM_WRITE, &info);
  if (!f) return std::fprintf(stderr, "libsndfile cannot write %s: %s\n", format.c_str(), sf_strerror(nullptr)), 1;
  sf_writef_float(f, samples.data(), static_cast<sf_count_t>(samples.size() / channels));
  sf_close(f);
  return 0;
}

int run(const std::string& program_path, const std::string& file, const std::string& outdir) {
  using namespace ogai::media::audio;
  std::ifstream in(program_path);
  const auto program = parse_audio_program(nlohmann::json::parse(in), "preprocessing.audio");
  const auto bytes = read_file(file);
  const auto outputs = program.run(bytes, file);
  std::filesystem::create_directories(outdir);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& t = outputs[i];
    std::ofstream out(outdir + "/" + std::to_string(i) + ".bin", std::ios::binary);
    if (t.integer) out.write(reinterpret_cast<const char*>(t.i64.data()), static_cast<std::streamsize>(t.i64.size() * 8));
    else out.write(reinterpret_cast<const char*>(t.f32.data()), static_cast<std::streamsize>(t.f32.size() * 4));
    std::cout << nlohmann::json{{"index", i}, {"name", t.name}, {"integer", t.integer}, {"shape", t.shape}}.dump() << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  try {
    if (a.size() == 6 && a[0] == "encode") return encode(a[1], std::stoi(a[2]), std::stoi(a[3]), a[4], a[5]);
    if (a.size() == 4 && a[0] == "run") return run(a[1], a[2], a[3]);
  } catch (const ogai::Error& e) {
    std::cerr << "error: " << e.where() << ": " << e.message() << "\n";
    return 2;
  }
  std::cerr << "usage: audio_features_probe encode FORMAT RATE CHANNELS IN.f32 OUT | run PROGRAM.json FILE OUTDIR\n";
  return 1;
}
