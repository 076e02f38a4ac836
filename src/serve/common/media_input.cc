#include "serve/common/media_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "serve/common/api_error.h"
#include "serve/common/base64.h"

namespace ogai::serve {
namespace {

constexpr std::string_view kImageTypes[] = {"image/png", "image/jpeg", "image/jpg", "image/webp", "image/gif",
                                            "image/bmp"};
constexpr std::string_view kAudioTypes[] = {"audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave", "audio/mpeg",
                                            "audio/mp3", "audio/flac", "audio/x-flac", "audio/ogg"};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

template <std::size_t N>
bool listed(const std::string_view (&types)[N], const std::string& mime) {
  return std::find(std::begin(types), std::end(types), mime) != std::end(types);
}

std::string preview(std::string_view s) {
  constexpr std::size_t kMax = 40;
  return quote_value(s.substr(0, std::min(s.size(), kMax * 4)), kMax);
}

}  // namespace

const char* media_kind_name(MediaInput::Kind kind) { return kind == MediaInput::Kind::kImage ? "image" : "audio"; }

std::string audio_mime(std::string_view format) {
  const std::string f = lower(format);
  if (f == "wav" || f == "wave" || f == "x-wav" || f == "vnd.wave") return "audio/wav";
  if (f == "mp3" || f == "mpeg" || f == "mpga") return "audio/mpeg";
  if (f == "flac" || f == "x-flac") return "audio/flac";
  if (f == "ogg" || f == "oga" || f == "opus") return "audio/ogg";
  return "";
}

void MediaReader::count(const std::string& param) {
  if (++parts_ > limits_.max_parts)
    throw invalid_request(param, fmt::format("{}: more than {} images and audio clips in one request, the server's "
                                             "limit (--max-media-parts)",
                                             param, limits_.max_parts));
}

void MediaReader::check_mime(MediaInput::Kind kind, const std::string& mime, const std::string& param) const {
  const bool image = kind == MediaInput::Kind::kImage;
  if (image ? listed(kImageTypes, mime) : listed(kAudioTypes, mime)) return;
  throw invalid_request(param, fmt::format("{}: {} is not {} type this server takes ({})", param, preview(mime),
                                           image ? "an image" : "an audio",
                                           image ? "image/png, image/jpeg, image/webp, image/gif, image/bmp"
                                                 : "audio/wav, audio/mpeg, audio/flac, audio/ogg"));
}

MediaInput MediaReader::data_url(MediaInput::Kind kind, std::string_view url, const std::string& param,
                                 const std::string& origin) {
  count(param);
  const std::string scheme = lower(url.substr(0, std::min<std::size_t>(url.size(), 8)));
  if (scheme.starts_with("http://") || scheme.starts_with("https://")) return fetch(kind, url, param, origin);
  if (!scheme.starts_with("data:"))
    throw invalid_request(param, param + ": expected a data URL (data:<type>;base64,<data>), got " + preview(url));
  const std::size_t comma = url.find(',');
  if (comma == std::string_view::npos)
    throw invalid_request(param, param + ": the data URL has no ',' before its data");
  const std::string header = lower(url.substr(5, comma - 5));
  const std::size_t semicolon = header.find(';');
  if (semicolon == std::string::npos || header.substr(semicolon) != ";base64")
    throw invalid_request(param, param + ": the data URL must be base64 (data:<type>;base64,<data>), got " +
                                     preview(url.substr(0, comma)));
  return decode(kind, url.substr(comma + 1), header.substr(0, semicolon), param, origin);
}

MediaInput MediaReader::url(MediaInput::Kind kind, std::string_view url, const std::string& param,
                            const std::string& origin) {
  count(param);
  const std::string scheme = lower(url.substr(0, std::min<std::size_t>(url.size(), 8)));
  if (!scheme.starts_with("http://") && !scheme.starts_with("https://"))
    throw invalid_request(param, param + ": expected an http or https URL, got " + preview(url));
  return fetch(kind, url, param, origin);
}

MediaInput MediaReader::fetch(MediaInput::Kind kind, std::string_view url, const std::string& param,
                              const std::string& origin) const {
  if (!limits_.urls.allow)
    throw unsupported(param, param + ": this server does not fetch media from URLs (it runs without "
                                     "--allow-media-urls); send the file inline as a data URL "
                                     "(data:<type>;base64,<data>)");
  FetchedMedia got = fetch_media_url(url, limits_.urls, limits_.max_bytes, param);
  if (got.content_type.empty())
    throw invalid_request(param, param + ": the response has no Content-Type; the server takes " +
                                     (kind == MediaInput::Kind::kImage ? "image" : "audio") + " types only");
  check_mime(kind, got.content_type, param);
  if (got.bytes.empty()) throw invalid_request(param, param + ": the " + std::string(media_kind_name(kind)) + " is empty");
  return MediaInput{kind, std::move(got.bytes), std::move(got.content_type), origin};
}

MediaInput MediaReader::base64(MediaInput::Kind kind, std::string_view data, std::string mime,
                               const std::string& param, const std::string& origin) {
  count(param);
  return decode(kind, data, std::move(mime), param, origin);
}

MediaInput MediaReader::decode(MediaInput::Kind kind, std::string_view data, std::string mime,
                               const std::string& param, const std::string& origin) const {
  mime = lower(mime);
  check_mime(kind, mime, param);
  if (data.size() / 4 * 3 > limits_.max_bytes + 3)  // measured before decoding
    throw invalid_request(param, fmt::format("{}: the {} is larger than {} bytes, the server's limit "
                                             "(--max-media-bytes)",
                                             param, media_kind_name(kind), limits_.max_bytes));
  std::size_t bad_at = 0;
  std::optional<std::string> decoded = decode_base64(data, &bad_at);
  if (!decoded)
    throw invalid_request(param, fmt::format("{}: the data is not valid base64 (at character {})", param, bad_at));
  if (decoded->empty()) throw invalid_request(param, param + ": the " + std::string(media_kind_name(kind)) + " is empty");
  return MediaInput{kind, std::move(*decoded), std::move(mime), origin};
}

MediaInput MediaReader::bytes(MediaInput::Kind kind, std::string data, std::string mime, const std::string& param) {
  count(param);
  if (data.size() > limits_.max_bytes)
    throw invalid_request(param, fmt::format("{}: the {} is larger than {} bytes, the server's limit "
                                             "(--max-media-bytes)",
                                             param, media_kind_name(kind), limits_.max_bytes));
  if (data.empty()) throw invalid_request(param, param + ": the " + std::string(media_kind_name(kind)) + " is empty");
  return MediaInput{kind, std::move(data), lower(mime), param};
}

}  // namespace ogai::serve
