#include "cli/media_flags.h"

#include <filesystem>
#include <system_error>

#include "base/error.h"
#include "base/file.h"

namespace ogai::cli {

void add_media_flags(CLI::App& cmd, MediaFlags& flags) {
  cmd.add_option("--image", flags.images,
                 "an image file for the prompt's next image placeholder (repeatable, in order; with --chat the "
                 "user message gets one image part per file)");
  cmd.add_option("--audio", flags.audio,
                 "an audio file (WAV, FLAC, Ogg, MP3) for the prompt's next audio placeholder (repeatable, in order)");
}

MediaInput read_media_file(const std::string& path, MediaInput::Kind kind, std::uint64_t max_bytes) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) fail(ErrorCode::kNotFound, path, "cannot read the media file: {}", ec.message());
  if (size > max_bytes)
    fail(ErrorCode::kInvalidArgument, path, "the media file is {} bytes, over the limit of {} (--max-media-bytes)", size,
         max_bytes);
  return {kind, read_file(path), "", path};
}

std::vector<MediaInput> read_media(const MediaFlags& flags, const MediaLimits& limits) {
  const std::size_t count = flags.images.size() + flags.audio.size();
  if (count > limits.max_media_parts)
    fail(ErrorCode::kInvalidArgument, "--image", "{} images and audio files, over the limit of {} (--max-media-parts)",
         count, limits.max_media_parts);
  std::vector<MediaInput> media;
  for (const auto& p : flags.images) media.push_back(read_media_file(p, MediaInput::Kind::kImage, limits.max_media_bytes));
  for (const auto& p : flags.audio) media.push_back(read_media_file(p, MediaInput::Kind::kAudio, limits.max_media_bytes));
  return media;
}

std::vector<ContentPart> media_parts(const std::vector<MediaInput>& media, const std::string& text) {
  std::vector<ContentPart> parts;
  for (const auto& m : media)
    parts.push_back({m.kind == MediaInput::Kind::kAudio ? ContentPart::Kind::kAudio : ContentPart::Kind::kImage, "", m});
  if (!text.empty()) parts.push_back({ContentPart::Kind::kText, text, {}});
  return parts;
}

}  // namespace ogai::cli
