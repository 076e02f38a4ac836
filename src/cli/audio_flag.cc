#include "cli/audio_flag.h"

#include "base/input_file.h"

namespace ogai::cli {

void add_audio_flag(CLI::App& cmd, std::vector<std::string>& files) {
  cmd.add_option("--audio", files,
                 "an audio file (WAV, FLAC, Ogg, MP3) for an encoder-decoder speech package such as Whisper; the "
                 "prompt may then be left out (the package's transcription prompt)");
}

std::vector<MediaInput> read_audio_files(const std::vector<std::string>& files) {
  std::vector<MediaInput> media;
  for (const auto& path : files) {
    MediaInput m;
    m.kind = MediaInput::Kind::kAudio;
    m.bytes = read_file(path, kMaxAudioFileBytes);
    m.origin = path;
    media.push_back(std::move(m));
  }
  return media;
}

}  // namespace ogai::cli
