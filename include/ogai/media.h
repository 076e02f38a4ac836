// Media a request carries into a multimodal package (images and audio in). The contract every
// surface shares: the server's API translators, the CLI, Python and the C API fill these; the
// generate stage consumes them. Plain structs, no behaviour.
//
// A MediaInput is the encoded file as the user gave it (PNG/JPEG/WebP/GIF/BMP for images;
// WAV/FLAC/OGG/MP3 for audio): decoding, limits and the package's preprocessing program run in the
// generate stage, so every surface gets the same checks and messages. `mime` is a hint only (the
// bytes are sniffed); a mismatch between it and the bytes is an error naming both.
//
// Order is meaning: media are consumed in the order they appear in a conversation (ContentPart
// order across messages) or in GenerationOptions::media for a raw prompt, whose placeholders the
// package's prompt expansion replaces one by one (docs/multimodal.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ogai {

// Budgets on the media a request carries (LoadOptions::media_limits; every CLI command's flag of
// the same name). The decoders check each one from the file's header before decoding, and the
// error names the flag ("... (--max-image-pixels)") and the input. Defaults are safe for a server.
struct MediaLimits {
  std::size_t max_media_parts = 32;                // --max-media-parts: images and audio clips in one request
  std::uint64_t max_media_bytes = 20ull << 20;     // --max-media-bytes: one encoded file
  std::uint64_t max_image_pixels = 50'000'000;     // --max-image-pixels: width x height of one image
  std::uint64_t max_decoded_bytes = 256ull << 20;  // --max-decoded-bytes: one image's or clip's decoded samples
  double max_audio_seconds = 3600;                 // --max-audio-seconds: one clip's duration
};

struct MediaInput {
  enum class Kind { kImage, kAudio };
  Kind kind = Kind::kImage;
  std::string bytes;   // the encoded file, whole
  std::string mime;    // "image/png", "audio/wav", ... or empty (sniffed)
  std::string origin;  // where it came from, for messages: "messages[1].content[0]", a path, ...
};

// One part of a chat message's content, in order. A message with parts uses them instead of
// ChatMessage::content (which then stays empty); text parts render as the template's text items,
// media parts as its image / audio items.
struct ContentPart {
  enum class Kind { kText, kImage, kAudio };
  Kind kind = Kind::kText;
  std::string text;  // kText
  MediaInput media;  // kImage / kAudio (media.kind agrees with kind)
};

}  // namespace ogai
