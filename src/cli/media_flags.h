// Media files on the command line (docs/multimodal.md): `ogai generate --image FILE --audio FILE`
// (each repeatable) and `ogai chat`'s /image and /audio. Files are read whole (at most
// --max-media-bytes: media_limit_flags.h) and handed to the generate stage as MediaInputs;
// decoding, the other limits (LoadOptions::media_limits) and the package's preprocessing happen
// there, so the CLI and the server say the same.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ogai/chat.h"
#include "ogai/media.h"

namespace ogai::cli {

struct MediaFlags {
  std::vector<std::string> images, audio;  // in the order given, per kind
  bool any() const { return !images.empty() || !audio.empty(); }
};

void add_media_flags(CLI::App& cmd, MediaFlags& flags);

// One file as a MediaInput (origin: the path). Throws ogai::Error naming the file.
MediaInput read_media_file(const std::string& path, MediaInput::Kind kind, std::uint64_t max_bytes);

// The flags' files: the images in order, then the audio clips in order (a raw prompt's
// placeholders pair with each kind separately, so this order is the prompt's).
// More files than limits.max_media_parts, or one over max_media_bytes: an error naming the flag.
std::vector<MediaInput> read_media(const MediaFlags& flags, const MediaLimits& limits);

// A user message's parts: the media first (as a user attaches them), then the text.
std::vector<ContentPart> media_parts(const std::vector<MediaInput>& media, const std::string& text);

}  // namespace ogai::cli
