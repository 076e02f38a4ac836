// ORT GenAI's audio_processor_config.json (onnxruntime-extensions' feature-extraction sequence)
// -> a `preprocessing.audio` program (docs/media.md, "Audio"), internal to the importer.
//
// The Whisper sequence is mapped op by op: AudioDecoder -> decode, downmix to mono, resample to
// 16 kHz (Whisper's rate; the mel filterbank assumes it); STFTNorm (n_fft, frame_length = n_fft,
// hop_length; its `_comment` window must be the periodic Hann window, within 1e-6) supplies the
// STFT of LogMelSpectrum (chunk_size seconds -> pad/trim to a fixed window of chunk_size x 16000
// samples; n_mel bins, slaney mel scale, log10, Whisper's normalization). Any other operation or
// attribute is refused naming its JSON path. Pure functions; throw ogai::Error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ogai::importer {

struct AudioProgramPlan {
  std::vector<std::string> transforms;  // one YAML flow mapping per op
  std::int64_t mels = 0, frames = 0;    // the features: [batch, mels, frames]
  std::string features;                 // the program output's name (an SSA value)
};

inline constexpr const char* kAudioProcessorName = "audio_processor_config.json";

// nullopt when the folder has no audio_processor_config.json.
std::optional<AudioProgramPlan> read_audio_processor(const std::filesystem::path& dir);

}  // namespace ogai::importer
