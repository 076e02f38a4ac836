// parse_audio_program(): preprocessing.audio -> AudioProgram, every field checked at load.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/error.h"
#include "media/audio/program.h"

namespace ogai::media::audio {
namespace {

using nlohmann::json;

const std::map<std::string, AudioOpKind>& op_names() {
  static const std::map<std::string, AudioOpKind> names = {
      {"decode", AudioOpKind::kDecode}, {"resample", AudioOpKind::kResample}, {"downmix", AudioOpKind::kDownmix},
      {"rescale", AudioOpKind::kRescale}, {"zero_mean_unit_variance", AudioOpKind::kZeroMeanUnitVariance},
      {"normalize", AudioOpKind::kNormalize}, {"pad", AudioOpKind::kPad}, {"trim", AudioOpKind::kTrim},
      {"frame", AudioOpKind::kFrame}, {"spectrogram", AudioOpKind::kSpectrogram}, {"log_mel", AudioOpKind::kLogMel},
      {"log_mel_spectrogram", AudioOpKind::kLogMel}, {"emit_valid_frames", AudioOpKind::kEmitValidFrames},
      {"emit_valid_samples", AudioOpKind::kEmitValidSamples}, {"emit_sample_lengths", AudioOpKind::kEmitValidSamples},
      {"emit_validity_mask", AudioOpKind::kEmitValidityMask}, {"transpose", AudioOpKind::kTranspose},
      {"emit_token_count", AudioOpKind::kEmitTokenCount}};
  return names;
}

// Reads the fields of one JSON object, remembering which were read; finish() refuses the rest.
class Fields {
 public:
  Fields(const json& obj, std::string path) : obj_(obj), path_(std::move(path)) {}

  const json* find(const std::string& key) {
    used_.insert(key);
    auto it = obj_.find(key);
    return it == obj_.end() || it->is_null() ? nullptr : &*it;
  }
  double number(const std::string& key, double fallback, double min = -1e300) {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_number()) bad(key, *v, "a number");
    const double d = v->get<double>();
    if (!(d >= min) || !std::isfinite(d)) bad(key, *v, fmt::format("a finite number >= {}", min));
    return d;
  }
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min = 1) {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_number_integer() || v->get<std::int64_t>() < min || v->get<std::int64_t>() > (std::int64_t{1} << 40))
      bad(key, *v, fmt::format("an integer >= {}", min));
    return v->get<std::int64_t>();
  }
  std::int64_t required_integer(const std::string& key, std::int64_t min = 1) {
    if (!obj_.contains(key) || obj_[key].is_null()) missing(key);
    return integer(key, 0, min);
  }
  bool boolean(const std::string& key, bool fallback) {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) bad(key, *v, "true or false");
    return v->get<bool>();
  }
  template <typename E>
  E choice(const std::string& key, E fallback, const std::vector<std::pair<std::string, E>>& options) {
    const json* v = find(key);
    if (!v) return fallback;
    std::string known;
    for (const auto& [name, value] : options) {
      if (v->is_string() && v->get<std::string>() == name) return value;
      known += (known.empty() ? "" : ", ") + name;
    }
    bad(key, *v, "one of " + known);
  }
  [[noreturn]] void missing(const std::string& key) {
    fail(ErrorCode::kInvalidPackage, path_ + "." + key, "is required here");
  }
  [[noreturn]] void bad(const std::string& key, const json& v, const std::string& expected) {
    fail(ErrorCode::kInvalidPackage, path_ + "." + key, "is {}; expected {}", v.dump(), expected);
  }
  void finish() {
    for (const auto& [key, value] : obj_.items())
      if (!used_.count(key))
        fail(ErrorCode::kInvalidPackage, path_ + "." + key, "is not a field ogai reads for this op (value {}); "
             "docs/media.md lists each op's fields", value.dump());
  }

 private:
  const json& obj_;
  std::string path_;
  std::set<std::string> used_;
};

std::vector<std::string> names(Fields& f, const std::string& key, const std::string& path) {
  const json* v = f.find(key);
  if (!v) return {};
  if (!v->is_array() || v->empty() || v->size() > 1)
    fail(ErrorCode::kInvalidPackage, path + "." + key, "is {}; expected a list of one value name", v->dump());
  if (!(*v)[0].is_string() || (*v)[0].get<std::string>().empty())
    fail(ErrorCode::kInvalidPackage, path + "." + key, "is {}; expected a non-empty value name", v->dump());
  return {(*v)[0].get<std::string>()};
}

// STFT options out of range are a package error, found when the package loads.
void checked_at_load(const StftOptions& s, const std::string& path) {
  try {
    check_stft(s, path);
  } catch (const Error& e) {
    fail(ErrorCode::kInvalidPackage, path, "{}", e.message());
  }
}

PadMode read_pad_mode(Fields& f) {
  return f.choice<PadMode>("pad_mode", PadMode::kReflect, {{"reflect", PadMode::kReflect}, {"constant", PadMode::kConstant},
                                                          {"semicausal", PadMode::kSemicausal}});
}

void read_stft(Fields& f, StftOptions& s, bool whisper_frames, const std::string& path) {
  s.n_fft = static_cast<int>(f.integer("n_fft", 400));
  s.hop_length = static_cast<int>(f.integer("hop_length", 160));
  s.frame_length = static_cast<int>(f.integer("frame_length", s.n_fft));
  s.win_length = static_cast<int>(f.integer("win_length", s.frame_length));
  s.frame_extent = static_cast<int>(f.integer("frame_extent", s.frame_length));
  s.preemphasis = f.number("preemphasis", 0.0, 0.0);
  if (!f.boolean("preemphasis_htk_flavor", true))
    fail(ErrorCode::kUnsupported, path + ".preemphasis_htk_flavor",
         "is false; ogai pre-emphasizes in the HTK flavour only (within each frame, the first sample scaled by 1 - p)");
  s.max_frames = static_cast<std::size_t>(f.integer("max_frames", 0, 0));
  s.window = f.choice<WindowKind>("window", WindowKind::kHann,
                                  {{"hann", WindowKind::kHann}, {"hamming", WindowKind::kHamming},
                                   {"rectangular", WindowKind::kRectangular}, {"boxcar", WindowKind::kRectangular}});
  s.periodic = f.boolean("window_periodic", true);
  s.center = f.boolean("center", true);
  s.pad_mode = read_pad_mode(f);
  s.power = f.number("power", 2.0, 1e-6);
  s.drop_last_frame = f.boolean("drop_last_frame", whisper_frames);
  checked_at_load(s, path);
}

FrameValidity read_validity(Fields& f) {
  return f.choice<FrameValidity>("frame_validity", FrameValidity::kHop,
                                 {{"hop", FrameValidity::kHop}, {"extent_end", FrameValidity::kExtentEnd}});
}

// emit_token_count's `convolutions`: [{kernel, stride, padding}, ...].
std::vector<Convolution> read_convolutions(Fields& f, const std::string& path) {
  const json* v = f.find("convolutions");
  if (!v) return {};
  if (!v->is_array() || v->size() > 16)
    fail(ErrorCode::kInvalidPackage, path + ".convolutions", "is {}; expected a list of at most 16 {{kernel, stride, padding}}",
         v->dump());
  std::vector<Convolution> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string item = fmt::format("{}.convolutions[{}]", path, i);
    if (!(*v)[i].is_object())
      fail(ErrorCode::kInvalidPackage, item, "is {}; expected an object {{kernel, stride, padding}}", (*v)[i].dump());
    Fields c((*v)[i], item);
    out.push_back({c.integer("kernel", 3), c.integer("stride", 2), c.integer("padding", 1, 0)});
    c.finish();
  }
  return out;
}

void read_log_mel(Fields& f, AudioOp& op) {
  read_stft(f, op.stft, true, op.path);
  op.frame_validity = read_validity(f);
  op.mel.n_mels = static_cast<int>(f.required_integer("num_mel_bins"));
  op.mel.scale = f.choice<MelScale>("mel_scale", MelScale::kSlaney, {{"slaney", MelScale::kSlaney}, {"htk", MelScale::kHtk}});
  op.mel.norm = f.choice<MelNorm>("mel_norm", MelNorm::kSlaney, {{"slaney", MelNorm::kSlaney}, {"none", MelNorm::kNone}});
  op.mel.f_min = f.number("f_min", 0.0, 0.0);
  op.mel.f_max = f.number("f_max", -1.0, 0.0);
  op.log.kind = f.choice<LogKind>("log", LogKind::kLog10, {{"log10", LogKind::kLog10}, {"ln", LogKind::kLn},
                                                           {"db", LogKind::kDecibel}, {"none", LogKind::kNone}});
  op.log.floor = f.number("log_floor", 1e-10, 1e-38);
  op.log.mode = f.choice<FloorMode>("log_floor_mode", FloorMode::kClamp, {{"clamp", FloorMode::kClamp}, {"add", FloorMode::kAdd}});
}

void read_fields(Fields& f, AudioOp& op) {
  const std::vector<std::pair<std::string, Side>> sides = {{"right", Side::kRight}, {"left", Side::kLeft}};
  switch (op.kind) {
    case AudioOpKind::kDecode: case AudioOpKind::kEmitValidSamples: case AudioOpKind::kEmitValidityMask: break;
    case AudioOpKind::kResample: op.sample_rate = static_cast<int>(f.required_integer("sample_rate")); break;
    case AudioOpKind::kDownmix: op.channels = static_cast<int>(f.integer("channels", 1)); break;
    case AudioOpKind::kRescale:
      if (!f.find("scale")) f.missing("scale");
      op.scale = f.number("scale", 1.0);
      break;
    case AudioOpKind::kZeroMeanUnitVariance: op.epsilon = f.number("epsilon", 1e-7, 0.0); break;
    case AudioOpKind::kNormalize:
      op.norm = f.choice<FeatureNorm>("mode", FeatureNorm::kWhisper,
                                      {{"whisper_log_mel", FeatureNorm::kWhisper}, {"per_feature", FeatureNorm::kPerFeature},
                                       {"all_features", FeatureNorm::kAllFeatures}, {"none", FeatureNorm::kNone}});
      op.epsilon = f.number("epsilon", 1e-7, 0.0);
      break;
    case AudioOpKind::kPad: {
      const std::string mode = f.find("mode") && f.find("mode")->is_string() ? f.find("mode")->get<std::string>() : "right";
      op.fixed_window = mode == "fixed_window";
      op.side = op.fixed_window ? Side::kRight : f.choice<Side>("mode", Side::kRight, sides);
      op.target_length = static_cast<std::size_t>(op.fixed_window ? f.required_integer("target_length") : f.integer("target_length", 0));
      op.multiple_of = static_cast<std::size_t>(f.integer("multiple_of", 0));
      if (op.multiple_of > 0 && (op.fixed_window || op.target_length > 0 || op.side != Side::kRight))
        fail(ErrorCode::kInvalidPackage, op.path + ".multiple_of",
             "pads on the right to a multiple; it takes no target_length and no mode but right");
      op.pad_value = static_cast<float>(f.number("pad_value", 0.0));
      break;
    }
    case AudioOpKind::kTrim:
      op.target_length = static_cast<std::size_t>(f.required_integer("target_length"));
      op.side = f.choice<Side>("mode", Side::kRight, sides);
      break;
    case AudioOpKind::kFrame:
      op.stft.n_fft = static_cast<int>(f.integer("n_fft", 400));
      op.stft.win_length = static_cast<int>(f.integer("win_length", op.stft.n_fft));
      op.stft.hop_length = static_cast<int>(f.integer("hop_length", 160));
      op.stft.center = f.boolean("center", false);
      op.stft.pad_mode = read_pad_mode(f);
      op.frame_validity = read_validity(f);
      checked_at_load(op.stft, op.path);
      break;
    case AudioOpKind::kSpectrogram:
      read_stft(f, op.stft, true, op.path);
      op.frame_validity = read_validity(f);
      op.sample_rate = static_cast<int>(f.integer("sample_rate", 0));
      break;
    case AudioOpKind::kLogMel:
      read_log_mel(f, op);
      op.sample_rate = static_cast<int>(f.integer("sample_rate", 0));
      break;
    case AudioOpKind::kEmitValidFrames: op.hop_length = static_cast<int>(f.integer("hop_length", 0)); break;
    case AudioOpKind::kTranspose: break;
    case AudioOpKind::kEmitTokenCount:
      op.convolutions = read_convolutions(f, op.path);
      op.max_tokens = f.integer("max_tokens", 0, 0);
      break;
  }
}

AudioOp parse_op(const json& t, const std::string& path, const std::string& previous, std::size_t index) {
  if (!t.is_object()) fail(ErrorCode::kInvalidPackage, path, "is {}; expected an op object", t.dump());
  Fields f(t, path);
  const json* op_name = f.find("op");
  if (!op_name || !op_name->is_string()) fail(ErrorCode::kInvalidPackage, path + ".op", "is required: the op's name");
  AudioOp op;
  op.op = op_name->get<std::string>();
  op.path = path;
  auto it = op_names().find(op.op);
  if (it == op_names().end()) {
    std::string known;
    for (const auto& [name, kind] : op_names()) known += (known.empty() ? "" : ", ") + name;
    fail(ErrorCode::kUnsupported, path + ".op", "audio op '{}' is not executed by ogai (it implements {})", op.op, known);
  }
  op.kind = it->second;
  const auto in = names(f, "inputs", path), out = names(f, "outputs", path);
  op.input = in.empty() ? previous : in[0];
  op.output = out.empty() ? fmt::format("transforms[{}]", index) : out[0];
  if (op.kind == AudioOpKind::kDecode && !in.empty())
    fail(ErrorCode::kInvalidPackage, path + ".inputs", "decode reads the encoded input; it takes no value");
  read_fields(f, op);
  f.finish();
  return op;
}

AudioOutputBinding parse_output(const json& o, const std::string& path) {
  if (!o.is_object()) fail(ErrorCode::kInvalidPackage, path, "is {}; expected an output binding", o.dump());
  AudioOutputBinding b;
  for (const char* key : {"name", "source", "content", "dtype"}) {
    if (!o.contains(key) || !o[key].is_string() || o[key].get<std::string>().empty())
      fail(ErrorCode::kInvalidPackage, path + "." + key, "is required: a non-empty string");
  }
  b.name = o["name"];
  b.source = o["source"];
  b.content = o["content"];
  b.dtype = o["dtype"];
  static const std::set<std::string> contents = {"waveform", "features", "audio_features", "valid_frames", "valid_samples",
                                                 "sample_lengths", "frame_lengths", "validity_mask", "token_count"};
  if (!contents.count(b.content))
    fail(ErrorCode::kUnsupported, path + ".content", "output content '{}' is not produced by ogai (it knows {})", b.content,
         fmt::join(contents, ", "));
  static const std::set<std::string> dtypes = {"float32", "fp32", "float16", "fp16", "bfloat16", "bf16", "int64", "int32", "bool"};
  if (!dtypes.count(b.dtype))
    fail(ErrorCode::kUnsupported, path + ".dtype", "audio outputs are float32, float16, bfloat16, int64, int32 or bool; got '{}'",
         b.dtype);
  if (o.contains("contract") && o["contract"].is_object() && o["contract"].contains("rank"))
    b.rank = o["contract"]["rank"].get<std::int64_t>();
  else if (o.contains("rank") && o["rank"].is_number_integer())
    b.rank = o["rank"].get<std::int64_t>();
  if (o.contains("pad_value") && o["pad_value"].is_number()) b.pad_value = o["pad_value"].get<float>();
  b.optional = o.value("optional", false) == true;
  return b;
}

}  // namespace

AudioProgram parse_audio_program(const json& audio, const std::string& path) {
  if (!audio.is_object()) fail(ErrorCode::kInvalidPackage, path, "is {}; expected an object with transforms and outputs", audio.dump());
  AudioProgram p;
  const json transforms = audio.value("transforms", json::array());
  if (!transforms.is_array()) fail(ErrorCode::kInvalidPackage, path + ".transforms", "must be a list of ops");
  std::set<std::string> defined;
  std::string previous;
  for (std::size_t i = 0; i < transforms.size(); ++i) {
    const std::string op_path = fmt::format("{}.transforms[{}]", path, i);
    AudioOp op = parse_op(transforms[i], op_path, previous, i);
    if (op.kind != AudioOpKind::kDecode && previous.empty())
      fail(ErrorCode::kInvalidPackage, op_path, "{} reads a value before any op produced one (start with decode)", op.op);
    if (op.kind != AudioOpKind::kDecode && !defined.count(op.input))
      fail(ErrorCode::kInvalidPackage, op_path + ".inputs", "'{}' is not a value an earlier op produced", op.input);
    defined.insert(op.output);
    previous = op.output;
    p.ops_.push_back(std::move(op));
  }
  if (std::none_of(p.ops_.begin(), p.ops_.end(), [](const AudioOp& op) { return op.kind == AudioOpKind::kDecode; }))
    fail(ErrorCode::kInvalidPackage, path + ".transforms", "has no decode op: the encoded input is never decoded");
  const json outputs = audio.value("outputs", json::array());
  if (!outputs.is_array() || outputs.empty())
    fail(ErrorCode::kInvalidPackage, path + ".outputs", "must list at least one output binding");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string out_path = fmt::format("{}.outputs[{}]", path, i);
    auto b = parse_output(outputs[i], out_path);
    if (!defined.count(b.source))
      fail(ErrorCode::kInvalidPackage, out_path + ".source", "'{}' is not a value any transform produces", b.source);
    p.outputs_.push_back(std::move(b));
  }
  return p;
}

}  // namespace ogai::media::audio
