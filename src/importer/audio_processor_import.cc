// audio_feature_extraction.json (onnxruntime-extensions' `feature_extraction.sequence`) ->
// `preprocessing.audio` (processor_import.h is the contract). Gemma4LogMel becomes the program
// docs/media.md gives for Hugging Face's Gemma4AudioFeatureExtractor, with the attributes mapped:
// frame_length = round(sampling_rate * frame_length_ms / 1000), hop likewise, n_fft the next power
// of two >= frame_length (doubled with fft_overdrive), feature_size -> num_mel_bins,
// min/max_frequency -> f_min / f_max, mel_floor -> log_floor (added), preemphasis (HTK flavour).
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "base/error.h"
#include "base/file.h"
#include "importer/processor_fields.h"

namespace ogai::importer {
namespace {

using OJson = nlohmann::ordered_json;

// Hugging Face's Gemma4AudioFeatureExtractor call defaults and Gemma4Processor's audio_seq_length.
constexpr std::int64_t kMaxSamples = 480000, kPadMultiple = 128, kMaxSoftTokens = 750;

// AudioDecoder's settings (onnxruntime-extensions' defaults: 16 kHz, stereo mixed to mono).
struct Decoder {
  bool seen = false;
  std::int64_t rate = 16000;
  std::int64_t max_samples = 0;  // 0: no limit
  std::string path;
};

// Gemma4LogMel's attributes, with onnxruntime-extensions' defaults.
struct LogMel {
  std::int64_t feature_size = 128, sampling_rate = 16000;
  double frame_ms = 20.0, hop_ms = 10.0, f_min = 0.0, f_max = 8000.0, preemphasis = 0.0, mel_floor = 0.001;
  bool htk_flavour = true, overdrive = false;
  std::int64_t frame_length = 0, hop_length = 0, n_fft = 0;  // derived
};

[[noreturn]] void out_of_range(const JsonReader& r, const std::string& at, const std::string& value, const char* want) {
  r.refuse(at, fmt::format("is {}; expected {}", value, want));
}

std::int64_t read_positive(const JsonReader& r, const Json& a, const std::string& path, const char* key, std::int64_t fallback,
                           std::int64_t max) {
  if (!a.contains(key)) return fallback;
  const std::int64_t v = r.integer(a[key], path + ".attrs." + key);
  if (v <= 0 || v > max) out_of_range(r, path + ".attrs." + key, std::to_string(v), fmt::format("1 to {}", max).c_str());
  return v;
}

double read_number(const JsonReader& r, const Json& a, const std::string& path, const char* key, double fallback) {
  return a.contains(key) ? r.number(a[key], path + ".attrs." + key) : fallback;
}

void audio_decoder(const JsonReader& r, const Json& op, const std::string& path, Decoder& d) {
  const Json a = operation_attrs(r, op, path, {"target_sample_rate", "stereo_to_mono", "max_samples"});
  if (d.seen) r.refuse(path + ".type", "'AudioDecoder' twice");
  d.seen = true;
  d.path = path;
  d.rate = read_positive(r, a, path, "target_sample_rate", 16000, 384000);
  if (a.contains("stereo_to_mono") && r.integer(a["stereo_to_mono"], path + ".attrs.stereo_to_mono") == 0)
    r.refuse(path + ".attrs.stereo_to_mono", "is 0: the clip's channels would reach the log-mel interleaved; ogai's "
                                             "programs mix them to mono (the extractor takes mono samples)");
  if (a.contains("max_samples")) {
    d.max_samples = r.integer(a["max_samples"], path + ".attrs.max_samples");
    if (d.max_samples < 0) out_of_range(r, path + ".attrs.max_samples", std::to_string(d.max_samples), "0 (no limit) or more");
  }
}

LogMel read_log_mel(const JsonReader& r, const Json& op, const std::string& path) {
  const Json a = operation_attrs(r, op, path, {"feature_size", "sampling_rate", "frame_length_ms", "hop_length_ms", "min_frequency",
                                               "max_frequency", "preemphasis", "preemphasis_htk_flavor", "fft_overdrive",
                                               "mel_floor", "per_bin_mean", "per_bin_stddev"});
  for (const char* key : {"per_bin_mean", "per_bin_stddev"})
    if (a.contains(key))
      r.refuse(path + ".attrs." + key, "has no ogai audio op: missing step 'per_bin_normalization' (the masked log-mel "
                                       "minus a fixed mean per mel bin, divided by a fixed standard deviation per bin)");
  LogMel m;
  m.feature_size = read_positive(r, a, path, "feature_size", m.feature_size, 1024);
  m.sampling_rate = read_positive(r, a, path, "sampling_rate", m.sampling_rate, 384000);
  m.frame_ms = read_number(r, a, path, "frame_length_ms", m.frame_ms);
  m.hop_ms = read_number(r, a, path, "hop_length_ms", m.hop_ms);
  m.f_min = read_number(r, a, path, "min_frequency", m.f_min);
  m.f_max = read_number(r, a, path, "max_frequency", m.f_max);
  m.preemphasis = read_number(r, a, path, "preemphasis", m.preemphasis);
  m.mel_floor = read_number(r, a, path, "mel_floor", m.mel_floor);
  if (a.contains("preemphasis_htk_flavor"))
    m.htk_flavour = r.integer(a["preemphasis_htk_flavor"], path + ".attrs.preemphasis_htk_flavor") != 0;
  if (a.contains("fft_overdrive")) m.overdrive = r.integer(a["fft_overdrive"], path + ".attrs.fft_overdrive") != 0;
  return m;
}

// The sample lengths and the checks the program's log_mel makes at load, named by attribute here.
void derive(const JsonReader& r, const std::string& path, LogMel& m) {
  const auto samples = [&](double ms, const char* key) {
    const double n = std::round(static_cast<double>(m.sampling_rate) * ms / 1000.0);
    if (!(n >= 2 && n <= 65536))
      out_of_range(r, path + ".attrs." + key, fmt::format("{} ms ({} samples at {} Hz)", ms, n, m.sampling_rate),
                   "2 to 65536 samples");
    return static_cast<std::int64_t>(n);
  };
  m.frame_length = samples(m.frame_ms, "frame_length_ms");
  m.hop_length = samples(m.hop_ms, "hop_length_ms");
  m.n_fft = 1;
  while (m.n_fft < m.frame_length) m.n_fft <<= 1;
  if (m.overdrive) m.n_fft <<= 1;
  const double nyquist = static_cast<double>(m.sampling_rate) / 2;
  if (!(m.f_min >= 0 && m.f_min < m.f_max))
    out_of_range(r, path + ".attrs.min_frequency", fmt::format("{} (max_frequency {})", m.f_min, m.f_max),
                 ">= 0 and below max_frequency");
  if (m.f_max > nyquist)
    out_of_range(r, path + ".attrs.max_frequency", fmt::format("{}", m.f_max), "at most sampling_rate / 2");
  if (!(m.preemphasis >= 0 && m.preemphasis < 1))
    out_of_range(r, path + ".attrs.preemphasis", fmt::format("{}", m.preemphasis), "in [0, 1)");
  if (m.preemphasis > 0 && !m.htk_flavour)
    r.refuse(path + ".attrs.preemphasis_htk_flavor",
             "is 0 with preemphasis > 0: the other flavour (x[i + 1] - p x[i] over frame_length + 1 samples) has no ogai "
             "audio op; ogai pre-emphasizes in the HTK flavour (the first sample scaled by 1 - p)");
  if (!(m.mel_floor > 0 && std::isfinite(m.mel_floor)))
    out_of_range(r, path + ".attrs.mel_floor", fmt::format("{}", m.mel_floor), "a positive number");
}

// The program of docs/media.md ("Gemma-4"): decode, mono, the analysis rate, Hugging Face's
// truncation and padding, the semicausal log-mel, time-major features, the frame mask and the
// soft-token count.
OJson gemma4_transforms(const Decoder& d, const LogMel& m) {
  const std::int64_t limit = d.max_samples > 0 ? std::min(d.max_samples, kMaxSamples) : kMaxSamples;
  OJson log_mel = {{"op", "log_mel"}, {"num_mel_bins", m.feature_size}, {"n_fft", m.n_fft},
                   {"frame_length", m.frame_length}, {"frame_extent", m.frame_length + 1},
                   {"hop_length", m.hop_length}, {"window", "hann"}, {"center", true}, {"pad_mode", "semicausal"},
                   {"drop_last_frame", false}, {"preemphasis", m.preemphasis}, {"power", 1.0}, {"mel_scale", "htk"},
                   {"mel_norm", "none"}, {"f_min", m.f_min}, {"f_max", m.f_max}, {"log", "ln"},
                   {"log_floor", m.mel_floor}, {"log_floor_mode", "add"}, {"frame_validity", "extent_end"}};
  OJson tokens = {{"op", "emit_token_count"}, {"inputs", OJson::array({"audio.transform_features"})}, {"outputs", OJson::array({"audio.transform_tokens"})},
                  {"max_tokens", kMaxSoftTokens},
                  {"convolutions", OJson::array({{{"kernel", 3}, {"stride", 2}, {"padding", 1}},
                                                 {{"kernel", 3}, {"stride", 2}, {"padding", 1}}})}};
  return OJson::array({
      {{"op", "decode"}},
      {{"op", "downmix"}, {"channels", 1}},
      {{"op", "resample"}, {"sample_rate", m.sampling_rate}},
      {{"op", "trim"}, {"target_length", limit}},
      {{"op", "pad"}, {"multiple_of", kPadMultiple}, {"pad_value", 0.0}},
      log_mel,
      {{"op", "transpose"}, {"outputs", OJson::array({"audio.transform_features"})}},
      {{"op", "emit_validity_mask"}, {"inputs", OJson::array({"audio.transform_features"})}, {"outputs", OJson::array({"audio.transform_mask"})}},
      tokens,
  });
}

// What the Gemma-4 processor makes, by genai_config.json's model.speech.inputs keys.
std::vector<MadeField> gemma4_fields() {
  return {{"audio_embeds", {{"content", "audio_features"}, {"source", "audio.transform_features"}}},
          {"attention_mask", {{"content", "validity_mask"}, {"source", "audio.transform_mask"}}},
          {"audio_sizes", {{"content", "token_count"}, {"source", "audio.transform_tokens"}}}};
}

// Each target's dtype and rank against what its content can be.
void check_target(const JsonReader& r, const ProgramTarget& t, const std::string& content) {
  const bool floating = t.dtype == DataType::kFloat32 || t.dtype == DataType::kFloat16 || t.dtype == DataType::kBfloat16;
  const bool index = t.dtype == DataType::kInt64 || t.dtype == DataType::kInt32;
  struct Want { bool dtype_ok; int rank_min, rank_max; const char* what; };
  const Want w = content == "audio_features" ? Want{floating, 2, 3, "float [1, frames, feature_size] or [frames, feature_size]"}
                 : content == "validity_mask" ? Want{index || t.dtype == DataType::kBool, 2, 2, "bool or int [1, frames]"}
                                              : Want{index, 1, 1, "int64 or int32 [1]"};
  if (!w.dtype_ok || (t.rank >= 0 && (t.rank < w.rank_min || t.rank > w.rank_max)))
    fail(ErrorCode::kUnsupported, r.origin().string(), "the graph input '{}' ({}) is {} of rank {}; the processor makes "
         "{} as {}", t.output.substr(t.output.find('.') + 1), t.field, dtype_name(t.dtype), t.rank, content, w.what);
}

std::string file_name(const JsonReader& r) { return r.origin().filename().string(); }

}  // namespace

ProcessorProgram parse_audio_processor(const std::string& text, const std::filesystem::path& origin,
                                       const std::vector<ProgramTarget>& targets) {
  JsonReader r(origin);
  const Json root = r.parse(text);
  const Json& list = feature_sequence(r, root);
  Decoder decoder;
  std::optional<LogMel> mel;
  std::string mel_path;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const ExtensionOperation e = extension_operation(r, list[i], fmt::format("feature_extraction.sequence[{}]", i));
    const Json& op = e.op;
    const std::string& path = e.path;
    const std::string& type = e.type;
    if (type == "AudioDecoder") {
      if (mel) r.refuse(path + ".type", "'AudioDecoder' after the feature operation");
      audio_decoder(r, op, path, decoder);
    } else if (type == "Gemma4LogMel") {
      if (!decoder.seen) r.refuse(path + ".type", "'Gemma4LogMel' before AudioDecoder: the program starts from the encoded audio");
      if (mel) r.refuse(path + ".type", "a second feature operation");
      mel = read_log_mel(r, op, path);
      mel_path = path;
      derive(r, path, *mel);
    } else {
      r.refuse(path + ".type", "'" + type + "' is not an audio operation ogai translates (AudioDecoder, Gemma4LogMel)");
    }
  }
  if (!decoder.seen) r.refuse("feature_extraction.sequence", "no AudioDecoder: the program starts from the encoded audio");
  if (!mel)
    r.refuse("feature_extraction.sequence", "no feature operation after AudioDecoder: nothing for '" +
                                                (targets.empty() ? std::string("the speech graph") : targets.front().field) + "'");
  if (decoder.rate != mel->sampling_rate)
    r.refuse(decoder.path + ".attrs.target_sample_rate",
             fmt::format("is {} but {}.attrs.sampling_rate is {}: the log-mel would analyse samples at another rate than "
                         "it was configured for", decoder.rate, mel_path, mel->sampling_rate));
  const std::vector<MadeField> made = gemma4_fields();
  for (const ProgramTarget& t : targets)
    for (const auto& [field, value] : made)
      if (field == t.field) check_target(r, t, value["content"].get<std::string>());
  ProcessorProgram p;
  OJson outputs = bind_outputs(r, made, targets, p.fields);
  for (auto& o : outputs)
    if (o["content"] == "audio_features") o["pad_value"] = 0.0;
  p.program = {{"transforms", gemma4_transforms(decoder, *mel)}, {"outputs", std::move(outputs)}};
  p.notes.push_back(file_name(r) + " " + mel_path + " Gemma4LogMel: Hugging Face's Gemma4AudioFeatureExtractor (the clip "
                    "cut at 480000 samples and zero-padded to a multiple of 128, frames past the clip masked; the soft "
                    "tokens counted from the valid frames); onnxruntime-extensions neither cuts nor pads, so its frame "
                    "count can differ while the valid frames agree");
  return p;
}

ProcessorProgram import_audio_processor(const std::filesystem::path& file, const std::vector<ProgramTarget>& targets) {
  return parse_audio_processor(read_file(file), file, targets);
}

}  // namespace ogai::importer
