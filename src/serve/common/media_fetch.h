// Fetching an http(s) media URL for a request (OpenAI image_url, Responses input_image, Anthropic
// url sources) when the server allows it (`ogai serve --allow-media-urls`; off by default). The
// transfer is libcurl's (Debian's libcurl4-openssl-dev; a maintained HTTP/TLS client rather than
// one written here), with hard limits:
//   - only http and https, for the URL and every redirect (libcurl's protocol allow-lists);
//   - at most `max_redirects` redirects (a loop ends there);
//   - the whole transfer within `timeout_ms` (connecting included);
//   - at most `max_bytes` bytes: a larger Content-Length is refused before the body, a body that
//     grows past it is cut off;
//   - no connection to a loopback, private, link-local, carrier-grade NAT, multicast or
//     unspecified address (IPv4, IPv6 and IPv4-mapped IPv6), checked on the address libcurl is
//     about to connect to, so redirects and DNS answers cannot reach them, unless
//     `allow_private` (--allow-private-media-urls);
//   - no proxy from the environment, no content decoding (what arrives is what is counted), no
//     cookies; TLS peers are verified with the system's CA store.
// A status other than 200 is refused. Every refusal is an ApiError 400 naming `param` and why.
// The Content-Type (without parameters, lower-cased) comes back for the caller's type check.
// Thread-safe (one libcurl handle per call; libcurl's global setup runs once).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

struct sockaddr;

namespace ogai::serve {

struct MediaUrlPolicy {
  bool allow = false;          // --allow-media-urls
  bool allow_private = false;  // --allow-private-media-urls
  long timeout_ms = 10'000;    // --media-url-timeout (seconds on the command line)
  long max_redirects = 3;
};

struct FetchedMedia {
  std::string bytes;
  std::string content_type;  // "image/png"; empty when the response had none
};

FetchedMedia fetch_media_url(std::string_view url, const MediaUrlPolicy& policy, std::size_t max_bytes,
                             const std::string& param);

// Whether `address` (AF_INET or AF_INET6) is a public unicast address the fetcher may connect to
// without allow_private. Other families are not.
bool public_address(const sockaddr* address);

}  // namespace ogai::serve
