// The declarative `preprocessing.audio` program of an inference_metadata v1 document (the
// schema's AudioPreprocessingProgram): an ordered list of `transforms` over named values and the
// `outputs` that bind values to workflow SSA names. parse_audio_program() reads and checks the
// document section once (at package load); AudioProgram::run() turns one encoded clip into the
// output tensors (batch 1). Semantics of every op and field: docs/media.md, section "audio".
//
// Ops (the schema's vocabulary): decode, resample, downmix, rescale, zero_mean_unit_variance,
// normalize, pad, trim, frame, spectrogram, log_mel (= log_mel_spectrogram), emit_valid_frames,
// emit_valid_samples (= emit_sample_lengths), emit_validity_mask; ogai's: transpose (features to
// [frames, features]) and emit_token_count (token_count.h). An op reads `inputs[0]` (default:
// the previous op's value) and names its value `outputs[0]`.
// Errors: parse throws ogai::Error(kInvalidPackage / kUnsupported) naming the document path
// (`preprocessing.audio.transforms[2].n_fft`) for a missing, unknown or out-of-range field or op;
// run throws kInvalidArgument naming the input (`input_name`) for bad media (decode.h) and the op
// for values it cannot take. An AudioProgram is immutable; run() is const and thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "media/audio/decode.h"
#include "media/audio/frame_validity.h"
#include "media/audio/log_mel.h"
#include "media/audio/token_count.h"
#include "media/audio/waveform_ops.h"

namespace ogai::media::audio {

enum class AudioOpKind {
  kDecode, kResample, kDownmix, kRescale, kZeroMeanUnitVariance, kNormalize, kPad, kTrim, kFrame,
  kSpectrogram, kLogMel, kEmitValidFrames, kEmitValidSamples, kEmitValidityMask, kTranspose, kEmitTokenCount,
};

struct AudioOp {
  AudioOpKind kind = AudioOpKind::kDecode;
  std::string op, path;  // as written; "preprocessing.audio.transforms[i]"
  std::string input, output;
  int sample_rate = 0;       // resample target; log_mel / spectrogram analysis rate (0: the clip's)
  int channels = 1;          // downmix
  double scale = 1.0;        // rescale
  double epsilon = 1e-7;     // zero_mean_unit_variance, normalize
  std::size_t target_length = 0;  // pad / trim (0 with pad: nothing to pad to for one clip)
  std::size_t multiple_of = 0;    // pad: to the next multiple of this many samples (0: off)
  float pad_value = 0.0f;
  Side side = Side::kRight;
  bool fixed_window = false;  // pad mode fixed_window: pad and trim to target_length
  FeatureNorm norm = FeatureNorm::kWhisper;
  StftOptions stft;           // frame (n_fft / win_length, hop_length), spectrogram, log_mel
  MelOptions mel;
  LogOptions log;
  int hop_length = 0;         // emit_valid_frames: samples per frame (0: the program's STFT hop)
  FrameValidity frame_validity = FrameValidity::kHop;  // spectrogram, log_mel, frame
  std::vector<Convolution> convolutions;  // emit_token_count
  std::int64_t max_tokens = 0;            // emit_token_count (0: no cap)
};

struct AudioOutputBinding {
  std::string name, source, content, dtype;  // dtype as written (float32, int64, bool, ...)
  std::optional<std::int64_t> rank;          // contract.rank, else rank
  std::optional<float> pad_value;            // written into positions past the valid length
  bool optional = false;
};

// A produced tensor before it becomes an ort::Tensor: float or integer data, row-major.
struct AudioTensor {
  std::string name;  // the SSA name of its binding
  std::vector<std::int64_t> shape;
  bool integer = false;            // int64, int32 or bool (0 / 1) by the binding's dtype
  std::vector<float> f32;          // !integer
  std::vector<std::int64_t> i64;   // integer
};

class AudioProgram {
 public:
  const std::vector<AudioOp>& ops() const { return ops_; }
  const std::vector<AudioOutputBinding>& outputs() const { return outputs_; }

  // One encoded clip -> one tensor per output binding, in binding order.
  std::vector<AudioTensor> run(std::span<const std::uint8_t> encoded, const std::string& input_name,
                               const DecodeLimits& limits = {}) const;

 private:
  friend AudioProgram parse_audio_program(const nlohmann::json&, const std::string&);
  std::vector<AudioOp> ops_;
  std::vector<AudioOutputBinding> outputs_;
};

// `audio` is the document's preprocessing.audio object; `path` its document path.
AudioProgram parse_audio_program(const nlohmann::json& audio, const std::string& path);

}  // namespace ogai::media::audio
