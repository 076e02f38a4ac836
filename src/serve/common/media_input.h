// Media parts of a request (images and audio in) read into ogai::MediaInput (include/ogai/media.h)
// by every surface's translator, with the server's bounds checked before any decoding: the
// number of media parts in one request (MediaLimits::max_parts, --max-media-parts) and each
// part's decoded size (max_bytes, --max-media-bytes; the base64 text is measured first, so an
// oversized part is never decoded). The data must be strict base64; the declared type must be an
// image type (image/png, jpeg, webp, gif, bmp) for images and an audio type (wav, mp3/mpeg, flac,
// ogg) for audio. `data:` URLs are read; http(s) URLs are fetched only when MediaLimits::urls allows
// it (`--allow-media-urls`, media_fetch.h: size, time, redirect and address limits; the response's
// Content-Type is checked as a declared type), otherwise a 400 says to send a data URL. Decoding the file itself (and checking the bytes against the type) is the
// generate stage's. Every refusal is an ApiError 400 naming the part's field (param = the JSON
// path). Not thread-safe (one reader per request).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ogai/ogai.h"
#include "serve/common/media_fetch.h"

namespace ogai::serve {

struct MediaLimits {
  std::size_t max_parts = 32;          // media parts in one request
  std::size_t max_bytes = 20u << 20;   // one part, decoded
  MediaUrlPolicy urls;                 // http(s) URLs (off by default)
};

// "image" / "audio" (the label /metrics and messages use).
const char* media_kind_name(MediaInput::Kind kind);

// An audio format name ("wav", "mp3", "flac", "ogg", ...) as a MIME type, or "" when unknown.
std::string audio_mime(std::string_view format);

class MediaReader {
 public:
  explicit MediaReader(const MediaLimits& limits) : limits_(limits) {}

  // A URL field holding "data:<type>;base64,<data>" (OpenAI's image_url.url, Responses'
  // image_url and file_data). `param` names the field; the MediaInput's origin is `origin`.
  MediaInput data_url(MediaInput::Kind kind, std::string_view url, const std::string& param, const std::string& origin);
  // An http(s) URL (Anthropic's {"type": "url", "url"} source): fetched when the limits allow it.
  MediaInput url(MediaInput::Kind kind, std::string_view url, const std::string& param, const std::string& origin);
  // Base64 `data` with its declared MIME type `mime` (Anthropic's source, chat input_audio).
  MediaInput base64(MediaInput::Kind kind, std::string_view data, std::string mime, const std::string& param,
                    const std::string& origin);
  // Bytes as sent (a multipart file), `mime` as declared (may be empty).
  MediaInput bytes(MediaInput::Kind kind, std::string data, std::string mime, const std::string& param);

  std::size_t parts() const { return parts_; }

 private:
  void count(const std::string& param);
  MediaInput decode(MediaInput::Kind kind, std::string_view data, std::string mime, const std::string& param,
                    const std::string& origin) const;
  void check_mime(MediaInput::Kind kind, const std::string& mime, const std::string& param) const;
  MediaInput fetch(MediaInput::Kind kind, std::string_view url, const std::string& param, const std::string& origin) const;

  MediaLimits limits_;
  std::size_t parts_ = 0;
};

}  // namespace ogai::serve
