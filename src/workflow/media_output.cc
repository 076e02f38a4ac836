#include "workflow/media_output.h"

#include <cstring>

#include "base/error.h"
#include "base/half.h"
#include "media/audio/resample.h"
#include "media/audio/riff_header.h"
#include "media/audio/wav_encode.h"
#include "media/image/png_encode.h"
#include "workflow/image_output.h"

namespace ogai::workflow {
namespace {

namespace audio = media::audio;

bool is_s16(const std::string& e) { return e == "pcm_s16_le" || e == "pcm_s16le"; }
bool is_f32(const std::string& e) { return e == "pcm_f32_le" || e == "pcm_f32le"; }

struct WavContract {
  audio::PcmEncoding encoding;
  int rate, source_rate, channels;
};

WavContract wav_contract(const metadata::Workflow& wf, const std::string& name) {
  const auto* out = metadata::find_named(wf.outputs, name);
  if (!out) fail(ErrorCode::kNotFound, "outputs." + name, "the workflow declares no output '{}'", name);
  const std::string where = "pipeline.workflow.outputs." + name;
  if (out->role != "audio" || !out->media)
    fail(ErrorCode::kInvalidArgument, where, "is not an audio output with a media contract (role '{}')", out->role);
  const auto& m = *out->media;
  if (m.container != "wav") fail(ErrorCode::kUnsupported, where + ".media.container", "'{}' is not encoded by ogai (it writes wav)", m.container);
  if (m.delivery != "buffered")
    fail(ErrorCode::kUnsupported, where + ".media.delivery", "'{}' audio is not delivered by ogai (buffered only)", m.delivery);
  if (!is_s16(m.encoding) && !is_f32(m.encoding))
    fail(ErrorCode::kUnsupported, where + ".media.encoding", "'{}' is not written by ogai (pcm_s16_le, pcm_f32_le)", m.encoding);
  if (m.sample_rate_hz.value_or(0) <= 0 || m.channels.value_or(0) <= 0 || m.source_sample_rate_hz.value_or(1) <= 0 ||
      *m.sample_rate_hz > 1'000'000 || *m.channels > 1024 || m.source_sample_rate_hz.value_or(1) > 1'000'000)
    fail(ErrorCode::kInvalidPackage, where + ".media", "needs positive sample_rate_hz and channels (and source_sample_rate_hz if given)");
  const int rate = static_cast<int>(*m.sample_rate_hz);
  return {is_s16(m.encoding) ? audio::PcmEncoding::kS16 : audio::PcmEncoding::kF32, rate,
          static_cast<int>(m.source_sample_rate_hz.value_or(rate)), static_cast<int>(*m.channels)};
}

std::vector<float> as_floats(const ort::Tensor& t, const std::string& where) {
  const auto n = static_cast<std::size_t>(ort::element_count(t.shape()));
  std::vector<float> out(n);
  if (t.dtype() == DataType::kFloat32) {
    std::memcpy(out.data(), t.raw_data(), n * sizeof(float));
  } else if (t.dtype() == DataType::kFloat16 || t.dtype() == DataType::kBfloat16 || t.dtype() == DataType::kFloat64) {
    convert_floats(t.raw_data(), t.dtype(), out.data(), DataType::kFloat32, n);
  } else {
    fail(ErrorCode::kInvalidArgument, where, "pre_adapter audio must be floating point; got {}", dtype_name(t.dtype()));
  }
  return out;
}

// A post_adapter value: WAV bytes, checked against the contract.
std::vector<std::uint8_t> checked_wav(const ort::Tensor& t, const WavContract& c, const std::string& where) {
  if (t.dtype() != DataType::kUint8 || t.shape().size() != 1)
    fail(ErrorCode::kInvalidArgument, where, "post_adapter audio must be uint8 [bytes]; got {}{}", dtype_name(t.dtype()),
         ort::shape_string(t.shape()));
  const auto* p = static_cast<const std::uint8_t*>(t.raw_data());
  std::vector<std::uint8_t> bytes(p, p + t.shape()[0]);
  const auto riff = audio::read_riff_header(bytes);
  const int bits = c.encoding == audio::PcmEncoding::kS16 ? 16 : 32;
  if (!riff || riff->data_present != riff->data_bytes || riff->channels != c.channels ||
      static_cast<int>(riff->sample_rate) != c.rate || riff->bits_per_sample != bits)
    fail(ErrorCode::kInvalidArgument, where, "post_adapter audio is not a complete {}-bit WAV of {} channel(s) at {} Hz",
         bits, c.channels, c.rate);
  return bytes;
}

}  // namespace

bool is_buffered_pcm16_wav(const metadata::WorkflowOutput& o) {
  return o.role == "audio" && o.media && o.media->container == "wav" && is_s16(o.media->encoding) &&
         o.media->delivery == "buffered" && o.media->sample_rate_hz.value_or(0) > 0 && o.media->channels.value_or(0) > 0;
}

std::vector<std::string> buffered_pcm16_wav_outputs(const metadata::Workflow& wf) {
  std::vector<std::string> names;
  for (const auto& [name, output] : wf.outputs)
    if (is_buffered_pcm16_wav(output)) names.push_back(name);
  return names;
}

std::string the_speech_output(const metadata::Workflow& wf) {
  const auto names = buffered_pcm16_wav_outputs(wf);
  if (names.size() == 1) return names[0];
  if (names.empty())
    fail(ErrorCode::kInvalidPackage, "pipeline.workflow.outputs",
         "no output is audio with media {{container: wav, encoding: pcm_s16_le, delivery: buffered, sample_rate_hz, "
         "channels}}: there is nothing to serve speech from");
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  fail(ErrorCode::kInvalidPackage, "pipeline.workflow.outputs",
       "{} outputs are buffered 16-bit WAV audio ({}); exactly one is needed to know which one a speech request returns",
       names.size(), list);
}

std::vector<std::vector<std::uint8_t>> encode_wav_output(const metadata::Workflow& wf, const std::string& output,
                                                         const ort::Tensor& value) {
  const WavContract c = wav_contract(wf, output);
  const std::string where = "outputs." + output;
  const auto* decl = metadata::find_named(wf.outputs, output);
  if (decl->stage == "post_adapter") return {checked_wav(value, c, where)};
  const auto& shape = value.shape();
  const bool batched = shape.size() == 3;
  if ((shape.size() != 2 && !batched) || shape[shape.size() - 2] != c.channels)
    fail(ErrorCode::kInvalidArgument, where, "pre_adapter audio must be [batch, {0}, samples] or [{0}, samples]; got {1}",
         c.channels, ort::shape_string(shape));
  const auto rows = static_cast<std::size_t>(batched ? shape[0] : 1);
  const auto samples = static_cast<std::size_t>(shape.back());
  const auto all = as_floats(value, where);
  std::vector<std::vector<std::uint8_t>> files;
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<float> planar;
    for (int ch = 0; ch < c.channels; ++ch) {
      const float* src = all.data() + (r * c.channels + ch) * samples;
      const auto resampled = audio::resample_channel({src, samples}, c.source_rate, c.rate, where);
      planar.insert(planar.end(), resampled.begin(), resampled.end());
    }
    files.push_back(audio::encode_wav(planar, c.channels, c.rate, c.encoding, where));
  }
  return files;
}

namespace {

std::string frame_name(std::size_t f) {
  std::string n = std::to_string(f + 1);
  return "frame-" + std::string(n.size() < 4 ? 4 - n.size() : 0, '0') + n + ".png";
}

// One tensor's files; `row` names per-row files (-1: the aggregate, rows named only when several).
void add_files(const metadata::Workflow& wf, const std::string& name, const metadata::WorkflowOutput& output,
               const ort::Tensor& value, std::int64_t row, std::vector<MediaFile>& files) {
  auto stem = [&](std::size_t r, std::size_t count) {
    if (row >= 0) return name + ".row." + std::to_string(row);
    return count == 1 ? name : name + ".row." + std::to_string(r);
  };
  if (output.media) {
    auto wavs = encode_wav_output(wf, name, value);
    for (std::size_t r = 0; r < wavs.size(); ++r) files.push_back({stem(r, wavs.size()) + ".wav", std::move(wavs[r])});
    return;
  }
  const auto rasters = output_rasters(wf, name, value);
  for (std::size_t r = 0; r < rasters.size(); ++r) {
    if (output.role == "image") {
      files.push_back({stem(r, rasters.size()) + ".png", media::encode_png(rasters[r].front(), "outputs." + name)});
      continue;
    }
    for (std::size_t f = 0; f < rasters[r].size(); ++f)
      files.push_back({stem(r, rasters.size()) + "/" + frame_name(f), media::encode_png(rasters[r][f], "outputs." + name)});
  }
}

}  // namespace

std::vector<MediaFile> media_files(const metadata::Workflow& wf, const RunResult& result) {
  std::vector<MediaFile> files;
  for (const auto& [name, output] : wf.outputs) {
    if (!output.media && !is_pixel_output(output)) continue;
    if (auto it = result.outputs.find(name); it != result.outputs.end()) add_files(wf, name, output, it->second, -1, files);
    for (const auto& [row, tensor] : result.rows(name)) add_files(wf, name, output, *tensor, row, files);
  }
  return files;
}

}  // namespace ogai::workflow
