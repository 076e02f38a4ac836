// `--audio FILE` for `ogai generate`: audio clips a package's encoder transcribes (Whisper-style
// encoder-decoder packages; docs/encoder_decoder.md). Each file is read whole under
// kMaxAudioFileBytes (not a regular file, missing or larger: refused naming the path) and handed
// to GenerationOptions::media as an audio MediaInput whose origin is the path; decoding and the
// package's preprocessing.audio program run in the generate stage. With --audio and no
// --prompt / --prompt-file the prompt is empty (the package's forced decoder prompt) and standard
// input is not read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ogai/media.h"

namespace ogai::cli {

inline constexpr std::uint64_t kMaxAudioFileBytes = std::uint64_t{256} << 20;  // 256 MiB

void add_audio_flag(CLI::App& cmd, std::vector<std::string>& files);
std::vector<MediaInput> read_audio_files(const std::vector<std::string>& files);

}  // namespace ogai::cli
