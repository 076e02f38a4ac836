#include "importer/audio_processor.h"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "base/file.h"
#include "importer/json_reader.h"
#include "importer/processor_fields.h"

namespace ogai::importer {
namespace {

constexpr std::int64_t kRate = 16000;  // Whisper's sample rate

const Json& need(const JsonReader& r, const Json& object, const std::string& path, const char* key) {
  if (!object.contains(key)) r.refuse(path.empty() ? std::string(key) : path + "." + key, "missing");
  return object[key];
}

struct Stft {
  std::int64_t n_fft = 0, hop = 0;
};

void check_hann(const JsonReader& r, const Json& window, const std::string& path, std::int64_t n) {
  if (!window.is_array() || static_cast<std::int64_t>(window.size()) != n)
    r.refuse(path, fmt::format("expected the {}-point periodic Hann window", n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double want = 0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n));
    const double got = r.number(window[static_cast<std::size_t>(i)], fmt::format("{}[{}]", path, i));
    if (std::abs(got - want) > 1e-6)
      r.refuse(fmt::format("{}[{}]", path, i), fmt::format("{} is not the periodic Hann window's {} (ogai's log_mel "
                                                            "windows with periodic Hann)", got, want));
  }
}

Stft read_stft(const JsonReader& r, const Json& op, const std::string& op_path) {
  const Json attrs = operation_attrs(r, op, op_path, {"n_fft", "frame_length", "hop_length", "_comment"});
  const std::string path = op_path + ".attrs";
  Stft s;
  s.n_fft = r.integer(need(r, attrs, path, "n_fft"), path + ".n_fft");
  s.hop = r.integer(need(r, attrs, path, "hop_length"), path + ".hop_length");
  if (attrs.contains("frame_length") && r.integer(attrs["frame_length"], path + ".frame_length") != s.n_fft)
    r.refuse(path + ".frame_length", "a frame shorter than n_fft is not mapped");
  if (s.n_fft < 2 || s.hop < 1) r.refuse(path, "n_fft must be >= 2 and hop_length >= 1");
  if (attrs.contains("_comment")) check_hann(r, attrs["_comment"], path + "._comment", s.n_fft);
  return s;
}

void read_log_mel(const JsonReader& r, const Json& op, const std::string& op_path, const Stft& stft,
                  AudioProgramPlan& plan) {
  const Json attrs = operation_attrs(r, op, op_path, {"chunk_size", "hop_length", "n_fft", "n_mel"});
  const std::string path = op_path + ".attrs";
  const std::int64_t chunk = r.integer(need(r, attrs, path, "chunk_size"), path + ".chunk_size");
  plan.mels = r.integer(need(r, attrs, path, "n_mel"), path + ".n_mel");
  for (const char* key : {"hop_length", "n_fft"})
    if (attrs.contains(key) && r.integer(attrs[key], path + "." + key) != (std::string(key) == "n_fft" ? stft.n_fft : stft.hop))
      r.refuse(path + "." + key, "differs from the STFT operation's");
  if (chunk < 1 || chunk > 3600) r.refuse(path + ".chunk_size", "expected 1 to 3600 seconds");
  if (plan.mels < 1 || plan.mels > 512) r.refuse(path + ".n_mel", "expected 1 to 512 mel bins");
  const std::int64_t samples = chunk * kRate;
  plan.frames = samples / stft.hop;
  plan.transforms.push_back(fmt::format("{{op: pad, inputs: [resampled], outputs: [windowed], mode: fixed_window, "
                                        "target_length: {}, pad_value: 0.0}}", samples));
  plan.transforms.push_back(fmt::format("{{op: log_mel, inputs: [windowed], outputs: [mel], num_mel_bins: {}, n_fft: "
                                        "{}, hop_length: {}, window: hann, mel_scale: slaney, sample_rate: {}}}",
                                        plan.mels, stft.n_fft, stft.hop, kRate));
  plan.transforms.push_back("{op: normalize, inputs: [mel], outputs: [features], mode: whisper_log_mel}");
}

}  // namespace

std::optional<AudioProgramPlan> read_audio_processor(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kAudioProcessorName;
  if (!std::filesystem::is_regular_file(file)) return std::nullopt;
  JsonReader r(file);
  const Json root = r.parse(read_file(file));
  const Json& seq = feature_sequence(r, root);
  AudioProgramPlan plan;
  plan.features = "audio.audio_features";
  std::optional<Stft> stft;
  bool decoded = false, mel = false;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const ExtensionOperation e = extension_operation(r, seq[i], fmt::format("feature_extraction.sequence[{}]", i));
    const std::string& path = e.path;
    const std::string& type = e.type;
    if (type == "AudioDecoder" && !decoded && !stft) {
      operation_attrs(r, e.op, path, {});
      plan.transforms.push_back("{op: decode, outputs: [samples]}");
      plan.transforms.push_back("{op: downmix, inputs: [samples], outputs: [mono], channels: 1}");
      plan.transforms.push_back(fmt::format("{{op: resample, inputs: [mono], outputs: [resampled], sample_rate: {}}}",
                                            kRate));
      decoded = true;
    } else if (type == "STFTNorm" && decoded && !stft) {
      stft = read_stft(r, e.op, path);
    } else if (type == "LogMelSpectrum" && stft && !mel) {
      read_log_mel(r, e.op, path, *stft, plan);
      mel = true;
    } else {
      r.refuse(path + ".type", "'" + type + "' here has no preprocessing.audio mapping (ogai maps Whisper's "
                               "AudioDecoder, STFTNorm, LogMelSpectrum, in that order)");
    }
  }
  if (!mel) r.refuse("feature_extraction.sequence", "no LogMelSpectrum operation: the encoder's features are log-mel");
  return plan;
}

}  // namespace ogai::importer
