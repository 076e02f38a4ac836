#include "serve/audio/whisper_audio.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include "media/audio/resample.h"
#include "media/audio/wav_encode.h"
#include "media/audio/waveform_ops.h"

namespace ogai::serve {

WhisperAudio::WhisperAudio(MediaInput file, const media::audio::DecodeLimits& limits) : file_(std::move(file)) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(file_.bytes.data());
  media::audio::Waveform w = media::audio::decode_audio({data, file_.bytes.size()}, "file", limits);
  if (w.channels > 1) w = media::audio::downmix(w, 1, "file");
  if (w.sample_rate != kRate) w = media::audio::resample(w, kRate, "file");
  samples_ = std::move(w.samples);
}

double WhisperAudio::window_seconds(std::size_t offset) const {
  return static_cast<double>(std::min(kWindow, samples_.size() - std::min(offset, samples_.size()))) / kRate;
}

MediaInput WhisperAudio::window(std::size_t offset) const {
  if (offset == 0 && samples_.size() <= kWindow) return file_;
  const std::size_t n = std::min(kWindow, samples_.size() - offset);
  const std::vector<std::uint8_t> wav = media::audio::encode_wav(
      std::span<const float>(samples_.data() + offset, n), 1, kRate, media::audio::PcmEncoding::kF32, "file");
  MediaInput m{MediaInput::Kind::kAudio, std::string(wav.begin(), wav.end()), "audio/wav",
               file_.origin + " (window at " + std::to_string(offset / kRate) + " s)"};
  return m;
}

}  // namespace ogai::serve
