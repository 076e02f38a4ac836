// AudioProgram::run(): one encoded clip through the ops, then the output bindings.
#include <algorithm>
#include <cmath>
#include <map>

#include "base/error.h"
#include "media/audio/program.h"
#include "media/audio/resample.h"

namespace ogai::media::audio {
namespace {

// A program value: samples, a time-indexed float matrix, or integers. `begin`/`valid` is the
// region along time (samples or frames) that came from the clip rather than from padding.
struct Value {
  enum class Kind { kWaveform, kMatrix, kInts } kind = Kind::kWaveform;
  Waveform wave;
  std::size_t rows = 0, cols = 0;  // matrix [rows, cols]
  std::vector<float> m;
  bool time_on_cols = true;        // [features, frames] (false: [frames, frame_length])
  int hop = 0, n_fft = 0, rate = 0;
  std::vector<std::int64_t> ints, int_shape;
  std::size_t begin = 0, valid = 0;

  std::size_t time_length() const {
    return kind == Kind::kWaveform ? wave.frames() : time_on_cols ? cols : rows;
  }
};

[[noreturn]] void wrong_kind(const AudioOp& op, const char* wants) {
  fail(ErrorCode::kInvalidArgument, op.path, "{} takes {}; its input '{}' is not one", op.op, wants, op.input);
}

const Waveform& waveform_of(const Value& v, const AudioOp& op) {
  if (v.kind != Value::Kind::kWaveform) wrong_kind(op, "audio samples");
  return v.wave;
}

std::vector<float> mono(const Waveform& w, const std::string& where) { return downmix(w, 1, where).samples; }

// The region [begin, begin + valid) after the time axis is mapped by `f` (monotone).
template <typename F>
void remap_region(Value& v, F f) {
  const std::size_t end = f(v.begin + v.valid);
  v.begin = f(v.begin);
  v.valid = end > v.begin ? end - v.begin : 0;
}

int stft_hop(const std::vector<AudioOp>& ops) {
  for (const auto& op : ops)
    if (op.kind == AudioOpKind::kLogMel || op.kind == AudioOpKind::kSpectrogram || op.kind == AudioOpKind::kFrame)
      return op.stft.hop_length;
  return 0;
}

Value resampled(const Value& in, int rate, const AudioOp& op) {
  Value out = in;
  const int from = in.wave.sample_rate;
  out.wave = resample(in.wave, rate, op.path);
  remap_region(out, [&](std::size_t n) { return resampled_length(n, from, rate); });
  return out;
}

// The mono samples an analysis op reads, at its declared rate when it has one.
std::vector<float> analysis_samples(const Value& in, const AudioOp& op, Value& out) {
  const Value at_rate = op.sample_rate > 0 && op.sample_rate != waveform_of(in, op).sample_rate
                            ? resampled(in, op.sample_rate, op) : in;
  out.rate = at_rate.wave.sample_rate;
  out.begin = at_rate.begin;
  out.valid = at_rate.valid;
  return mono(at_rate.wave, op.path);
}

// The sample region [out.begin, out.begin + out.valid) becomes the valid frames (frame_validity.h).
void frame_region(Value& out, std::size_t frames, const AudioOp& op) {
  const FrameRange r = valid_frame_range(out.begin, out.valid, frames, op.stft, op.frame_validity);
  out.begin = r.begin;
  out.valid = r.count;
}

Value log_mel_of(const Value& in, const AudioOp& op) {
  Value out;
  out.kind = Value::Kind::kMatrix;
  out.hop = op.stft.hop_length;
  out.n_fft = op.stft.n_fft;
  Features f;
  if (in.kind == Value::Kind::kMatrix && in.n_fft > 0 && in.time_on_cols) {  // a power spectrogram
    if (in.n_fft != op.stft.n_fft || in.rows != static_cast<std::size_t>(in.n_fft / 2 + 1))
      fail(ErrorCode::kInvalidArgument, op.path, "log_mel with n_fft {} cannot read a spectrogram of n_fft {}", op.stft.n_fft,
           in.n_fft);
    MelOptions mel = op.mel;
    mel.n_fft = in.n_fft;
    mel.sample_rate = in.rate;
    const MelFilterbank bank(mel, op.path);
    f = {mel.n_mels, in.cols, std::vector<float>(static_cast<std::size_t>(mel.n_mels) * in.cols)};
    std::vector<float> column(in.rows), row(static_cast<std::size_t>(mel.n_mels));
    for (std::size_t t = 0; t < in.cols; ++t) {
      for (std::size_t k = 0; k < in.rows; ++k) column[k] = in.m[k * in.cols + t];
      bank.apply(column.data(), row.data());
      for (std::size_t r = 0; r < row.size(); ++r) f.values[r * in.cols + t] = row[r];
    }
    apply_log(f.values, op.log);
    out.rate = in.rate, out.hop = in.hop, out.begin = in.begin, out.valid = in.valid;
  } else {
    const auto samples = analysis_samples(in, op, out);
    MelOptions mel = op.mel;
    mel.sample_rate = out.rate;
    f = log_mel(samples, op.stft, mel, op.log, op.path);
    frame_region(out, f.frames, op);
  }
  out.rows = static_cast<std::size_t>(f.rows), out.cols = f.frames, out.m = std::move(f.values);
  return out;
}

Value spectrogram_of(const Value& in, const AudioOp& op) {
  Value out;
  out.kind = Value::Kind::kMatrix;
  out.hop = op.stft.hop_length;
  out.n_fft = op.stft.n_fft;
  const auto samples = analysis_samples(in, op, out);
  check_stft(op.stft, op.path);
  out.m = power_spectrogram(samples, op.stft);
  out.rows = static_cast<std::size_t>(op.stft.n_fft / 2 + 1);
  out.cols = stft_frames(samples.size(), op.stft);
  frame_region(out, out.cols, op);
  return out;
}

Value frames_of(const Value& in, const AudioOp& op) {
  Value out;
  out.kind = Value::Kind::kMatrix;
  out.time_on_cols = false;
  out.hop = op.stft.hop_length;
  check_stft(op.stft, op.path);
  const auto x = analysis_samples(in, op, out);
  const std::size_t len = static_cast<std::size_t>(op.stft.win_length), frames = stft_frames(x.size(), op.stft);
  const auto shift = static_cast<std::ptrdiff_t>(op.stft.left_pad());
  out.rows = frames, out.cols = len, out.m.resize(frames * len);
  for (std::size_t t = 0; t < frames; ++t)
    for (std::size_t i = 0; i < len; ++i)
      out.m[t * len + i] = padded_sample(x, static_cast<std::ptrdiff_t>(t * out.hop + i) - shift, op.stft.pad_mode);
  frame_region(out, frames, op);
  return out;
}

// Features [rows, cols] -> [cols, rows]; the time axis moves with its data.
Value transposed(const Value& in, const AudioOp& op) {
  if (in.kind != Value::Kind::kMatrix) wrong_kind(op, "features (a log_mel, spectrogram or frame value)");
  Value out = in;
  out.rows = in.cols, out.cols = in.rows, out.time_on_cols = !in.time_on_cols;
  for (std::size_t r = 0; r < in.rows; ++r)
    for (std::size_t c = 0; c < in.cols; ++c) out.m[c * in.rows + r] = in.m[r * in.cols + c];
  return out;
}

// Padding is held to the decoding budget: a program cannot make more samples than a clip may decode to.
void check_pad_budget(std::size_t frames, int channels, const AudioOp& op, const DecodeLimits& limits) {
  const auto bytes = static_cast<unsigned __int128>(frames) * static_cast<unsigned>(channels) * sizeof(float);
  if (bytes > limits.max_decoded_bytes)
    fail(ErrorCode::kInvalidArgument, op.path, "{} pads the clip to {} samples per channel ({} channel(s)); the decoded "
         "size limit is {} bytes (--max-decoded-bytes)", op.op, frames, channels, limits.max_decoded_bytes);
}

Value padded(const Value& in, const AudioOp& op, const DecodeLimits& limits) {
  Value out = in;
  const Waveform& w = waveform_of(in, op);
  if (op.multiple_of > 0) {
    const std::size_t n = w.frames(), target = (n + op.multiple_of - 1) / op.multiple_of * op.multiple_of;
    check_pad_budget(target, w.channels, op, limits);
    out.wave = pad_to(w, target, Side::kRight, op.pad_value);
  } else if (op.fixed_window) {
    check_pad_budget(op.target_length, w.channels, op, limits);
    out.wave = fit_length(w, op.target_length, Side::kRight, op.pad_value);
  } else if (op.target_length > w.frames()) {
    check_pad_budget(op.target_length, w.channels, op, limits);
    out.wave = pad_to(w, op.target_length, op.side, op.pad_value);
    if (op.side == Side::kLeft) out.begin += op.target_length - w.frames();
  }
  out.valid = std::min(out.begin + out.valid, out.wave.frames()) - std::min(out.begin, out.wave.frames());
  return out;
}

Value trimmed(const Value& in, const AudioOp& op) {
  Value out = in;
  const Waveform& w = waveform_of(in, op);
  if (w.frames() <= op.target_length) return out;
  out.wave = trim_to(w, op.target_length, op.side);
  const std::size_t removed = op.side == Side::kLeft ? w.frames() - op.target_length : 0;
  remap_region(out, [&](std::size_t n) { return std::min(n > removed ? n - removed : 0, op.target_length); });
  return out;
}

void zmuv(Value& v, const AudioOp& op) {
  if (v.kind == Value::Kind::kInts) wrong_kind(op, "samples or features");
  if (v.kind == Value::Kind::kWaveform) {
    for (int c = 0; c < v.wave.channels; ++c) zero_mean_unit_variance(v.wave.channel(c).subspan(v.begin, v.valid), op.epsilon);
    return;
  }
  zero_mean_unit_variance(v.m, op.epsilon);
}

Value counts(std::vector<std::int64_t> values, std::vector<std::int64_t> shape) {
  Value v;
  v.kind = Value::Kind::kInts;
  v.ints = std::move(values);
  v.int_shape = std::move(shape);
  return v;
}

Value valid_frames(const Value& in, const AudioOp& op, int program_hop) {
  if (in.kind == Value::Kind::kMatrix) return counts({static_cast<std::int64_t>(in.valid)}, {1});
  const int hop = op.hop_length > 0 ? op.hop_length : program_hop;
  if (hop <= 0)
    fail(ErrorCode::kInvalidPackage, op.path + ".hop_length", "is needed: the program has no STFT op whose hop to count in");
  const auto h = static_cast<std::size_t>(hop);
  const std::size_t frames = waveform_of(in, op).frames() / h;
  return counts({static_cast<std::int64_t>(std::min(frames, (in.valid + h - 1) / h))}, {1});
}

Value validity_mask(const Value& in, const AudioOp& op) {
  if (in.kind == Value::Kind::kInts) wrong_kind(op, "samples or features");
  const std::size_t n = in.time_length();
  std::vector<std::int64_t> mask(n, 0);
  std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>(std::min(in.begin, n)), std::min(in.valid, n - std::min(in.begin, n)), 1);
  return counts(std::move(mask), {1, static_cast<std::int64_t>(n)});
}

Value apply(const AudioOp& op, const Value* in, std::span<const std::uint8_t> encoded, const std::string& input_name,
            const DecodeLimits& limits, int program_hop) {
  switch (op.kind) {
    case AudioOpKind::kDecode: {
      Value v;
      v.wave = decode_audio(encoded, input_name, limits);
      v.valid = v.wave.frames();
      return v;
    }
    case AudioOpKind::kResample: return resampled(*in, op.sample_rate, op);
    case AudioOpKind::kDownmix: {
      Value v = *in;
      v.wave = downmix(waveform_of(*in, op), op.channels, op.path);
      return v;
    }
    case AudioOpKind::kRescale: {
      Value v = *in;
      if (v.kind == Value::Kind::kInts) wrong_kind(op, "samples or features");
      rescale(v.kind == Value::Kind::kWaveform ? std::span<float>(v.wave.samples) : std::span<float>(v.m), op.scale);
      return v;
    }
    case AudioOpKind::kZeroMeanUnitVariance: {
      Value v = *in;
      zmuv(v, op);
      return v;
    }
    case AudioOpKind::kNormalize: {
      if (in->kind != Value::Kind::kMatrix) wrong_kind(op, "features (a log_mel or spectrogram value)");
      Value v = *in;
      Features f{static_cast<int>(v.rows), v.cols, std::move(v.m)};
      normalize_features(f, op.norm, op.epsilon);
      v.m = std::move(f.values);
      return v;
    }
    case AudioOpKind::kPad: return padded(*in, op, limits);
    case AudioOpKind::kTrim: return trimmed(*in, op);
    case AudioOpKind::kFrame: return frames_of(*in, op);
    case AudioOpKind::kSpectrogram: return spectrogram_of(*in, op);
    case AudioOpKind::kLogMel: return log_mel_of(*in, op);
    case AudioOpKind::kEmitValidFrames: return valid_frames(*in, op, program_hop);
    case AudioOpKind::kEmitValidSamples:
      if (in->kind != Value::Kind::kWaveform) wrong_kind(op, "audio samples");
      return counts({static_cast<std::int64_t>(in->valid)}, {1});
    case AudioOpKind::kEmitValidityMask: return validity_mask(*in, op);
    case AudioOpKind::kTranspose: return transposed(*in, op);
    case AudioOpKind::kEmitTokenCount:
      if (in->kind != Value::Kind::kMatrix) wrong_kind(op, "features (a log_mel or spectrogram value)");
      return counts({token_count(static_cast<std::int64_t>(in->valid), op.convolutions, op.max_tokens)}, {1});
  }
  OGAI_CHECK(false);
}

// Positions along time outside [begin, begin + valid) get `pad` (the binding's pad_value).
void fill_padding(AudioTensor& t, const Value& v, float pad) {
  const std::size_t n = v.time_length(), lanes = t.f32.size() / std::max<std::size_t>(n, 1);
  for (std::size_t lane = 0; lane < lanes; ++lane)
    for (std::size_t i = 0; i < n; ++i) {
      if (i >= v.begin && i < v.begin + v.valid) continue;
      const bool time_major = v.kind == Value::Kind::kMatrix && !v.time_on_cols;
      (time_major ? t.f32[i * lanes + lane] : t.f32[lane * n + i]) = pad;
    }
}

AudioTensor output_of(const AudioOutputBinding& b, const Value& v, const std::string& path) {
  AudioTensor t;
  t.name = b.name;
  const bool wants_wave = b.content == "waveform", wants_matrix = b.content == "features" || b.content == "audio_features";
  const bool wants_mask = b.content == "validity_mask";
  const bool ok = wants_wave ? v.kind == Value::Kind::kWaveform
                  : wants_matrix ? v.kind == Value::Kind::kMatrix
                                 : v.kind == Value::Kind::kInts && (v.int_shape.size() == 2) == wants_mask;
  if (!ok) fail(ErrorCode::kInvalidPackage, path + ".content", "is '{}', but its source '{}' is not that kind of value", b.content, b.source);
  const bool integer = b.dtype == "int64" || b.dtype == "int32" || b.dtype == "bool";
  if (v.kind != Value::Kind::kInts && integer)
    fail(ErrorCode::kInvalidPackage, path + ".dtype", "is {}, but '{}' holds floating-point values", b.dtype, b.source);
  if (v.kind == Value::Kind::kInts) {
    t.shape = v.int_shape;
    t.integer = integer;
    if (integer && b.dtype == "bool")
      for (const auto x : v.ints) t.i64.push_back(x != 0);
    else if (integer)
      t.i64 = v.ints;
    else t.f32.assign(v.ints.begin(), v.ints.end());
    return t;
  }
  if (v.kind == Value::Kind::kMatrix) {
    t.shape = {static_cast<std::int64_t>(v.rows), static_cast<std::int64_t>(v.cols)};
    if (b.rank.value_or(3) == 3) t.shape.insert(t.shape.begin(), 1);
    t.f32 = v.m;
  } else {
    const int rank = static_cast<int>(b.rank.value_or(v.wave.channels == 1 ? 2 : 3));
    const Waveform w = rank == 3 ? v.wave : downmix(v.wave, 1, path);
    t.shape = {static_cast<std::int64_t>(w.frames())};
    if (rank >= 3) t.shape.insert(t.shape.begin(), w.channels);
    if (rank >= 2) t.shape.insert(t.shape.begin(), 1);
    t.f32 = w.samples;
  }
  if (b.pad_value) fill_padding(t, v, *b.pad_value);
  return t;
}

}  // namespace

std::vector<AudioTensor> AudioProgram::run(std::span<const std::uint8_t> encoded, const std::string& input_name,
                                           const DecodeLimits& limits) const {
  std::map<std::string, Value> values;
  const int hop = stft_hop(ops_);
  for (const auto& op : ops_) {
    const Value* in = op.kind == AudioOpKind::kDecode ? nullptr : &values.at(op.input);
    values[op.output] = apply(op, in, encoded, input_name, limits, hop);
  }
  std::vector<AudioTensor> out;
  for (std::size_t i = 0; i < outputs_.size(); ++i)
    out.push_back(output_of(outputs_[i], values.at(outputs_[i].source), "preprocessing.audio.outputs[" + std::to_string(i) + "]"));
  return out;
}

}  // namespace ogai::media::audio
