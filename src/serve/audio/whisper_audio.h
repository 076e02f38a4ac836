// A transcription's audio as Whisper reads it: decoded once (media/audio/decode.h, within the
// given DecodeLimits: its duration and decoded-bytes budget), downmixed to mono and resampled to
// 16 kHz, and cut into 30 s windows from any sample offset. A window of the whole clip when it fits
// is the uploaded file itself (so a short clip is fed exactly as `ogai generate --audio` feeds it);
// any other window is a 32-bit float WAV of its samples (no precision lost). Errors: the decoder's
// ogai::Error naming `file`. Immutable after construction; thread-safe to read.
#pragma once

#include <cstddef>
#include <vector>

#include "media/audio/decode.h"
#include "ogai/media.h"

namespace ogai::serve {

class WhisperAudio {
 public:
  static constexpr int kRate = 16000;
  static constexpr std::size_t kWindow = 30 * kRate;  // samples in one window

  WhisperAudio(MediaInput file, const media::audio::DecodeLimits& limits);

  std::size_t samples() const { return samples_.size(); }
  double seconds() const { return static_cast<double>(samples_.size()) / kRate; }
  // The window starting at sample `offset` (< samples()): at most kWindow samples.
  MediaInput window(std::size_t offset) const;
  double window_seconds(std::size_t offset) const;

 private:
  MediaInput file_;
  std::vector<float> samples_;  // mono, kRate
};

}  // namespace ogai::serve
