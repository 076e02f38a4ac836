#include "serve/common/media_fetch.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <memory>
#include <mutex>

#include "serve/common/api_error.h"

namespace ogai::serve {
namespace {

bool public_v4(std::uint32_t a) {  // host order
  struct Block {
    std::uint32_t base;
    int bits;
  };
  static constexpr Block kBlocked[] = {
      {0x00000000, 8},  {0x0A000000, 8},  {0x64400000, 10}, {0x7F000000, 8},  {0xA9FE0000, 16},
      {0xAC100000, 12}, {0xC0000000, 24}, {0xC0000200, 24}, {0xC0A80000, 16}, {0xC6120000, 15},
      {0xC6336400, 24}, {0xCB007100, 24}, {0xE0000000, 4},  {0xF0000000, 4},
  };
  for (const Block& b : kBlocked)
    if ((a >> (32 - b.bits)) == (b.base >> (32 - b.bits))) return false;
  return true;
}

bool public_v6(const std::uint8_t* a) {
  static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static constexpr std::uint8_t kNat64[12] = {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  const auto v4 = [&] {
    return static_cast<std::uint32_t>(a[12]) << 24 | static_cast<std::uint32_t>(a[13]) << 16 |
           static_cast<std::uint32_t>(a[14]) << 8 | a[15];
  };
  if (std::memcmp(a, kMapped, 12) == 0 || std::memcmp(a, kNat64, 12) == 0) return public_v4(v4());
  if (std::all_of(a, a + 12, [](std::uint8_t b) { return b == 0; })) return false;  // ::, ::1, ::a.b.c.d
  if ((a[0] & 0xfe) == 0xfc) return false;                                          // fc00::/7 unique local
  if (a[0] == 0xfe && (a[1] & 0x80) == 0x80) return false;                          // fe80::/10, fec0::/10
  if (a[0] == 0xff) return false;                                                   // multicast
  if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8) return false;   // 2001:db8::/32
  return true;
}

struct Transfer {
  std::string body;
  std::size_t max_bytes = 0;
  bool too_large = false;
  bool allow_private = false;
  std::string blocked;  // the address refused, for the message
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (t->body.size() + n > t->max_bytes) {
    t->too_large = true;
    return 0;  // libcurl ends the transfer (CURLE_WRITE_ERROR)
  }
  t->body.append(data, n);
  return n;
}

std::string address_text(const sockaddr* sa) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
  else if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof text);
  return text;
}

curl_socket_t on_open_socket(void* user, curlsocktype, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(user);
  if (!t->allow_private && !public_address(&address->addr)) {
    t->blocked = address_text(&address->addr);
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype, address->protocol);
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string media_type(const char* header) {
  if (header == nullptr) return "";
  std::string t(header);
  t = t.substr(0, t.find(';'));
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  return t;
}

}  // namespace

bool public_address(const sockaddr* address) {
  if (address == nullptr) return false;
  if (address->sa_family == AF_INET)
    return public_v4(ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr));
  if (address->sa_family == AF_INET6)
    return public_v6(reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr.s6_addr);
  return false;
}

FetchedMedia fetch_media_url(std::string_view url, const MediaUrlPolicy& policy, std::size_t max_bytes,
                             const std::string& param) {
  global_init();
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw invalid_request(param, param + ": the media URL could not be fetched (libcurl did not start)");
  Transfer t;
  t.max_bytes = max_bytes;
  t.allow_private = policy.allow_private;
  const std::string target(url);
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, target.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_MAXREDIRS, policy.max_redirects);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, policy.timeout_ms);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, policy.timeout_ms);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_PROXY, "");  // no proxy from the environment: the address check sees the peer
  curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_bytes));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &t);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "ogai-serve");
  const CURLcode rc = curl_easy_perform(h);
  const std::string where = param + ": " + target.substr(0, 200);
  if (!t.blocked.empty())
    throw invalid_request(param, fmt::format("{}: the server does not fetch from the private or local address {} "
                                             "(--allow-private-media-urls allows it)", where, t.blocked));
  if (rc == CURLE_FILESIZE_EXCEEDED || t.too_large)
    throw invalid_request(param, fmt::format("{}: the media is larger than {} bytes, the server's limit "
                                             "(--max-media-bytes)", where, max_bytes));
  if (rc == CURLE_OPERATION_TIMEDOUT)
    throw invalid_request(param, fmt::format("{}: not fetched within {} ms (--media-url-timeout)", where,
                                             policy.timeout_ms));
  if (rc == CURLE_TOO_MANY_REDIRECTS)
    throw invalid_request(param, fmt::format("{}: more than {} redirects", where, policy.max_redirects));
  if (rc == CURLE_UNSUPPORTED_PROTOCOL)
    throw invalid_request(param, where + ": only http and https URLs are fetched (a redirect left them)");
  if (rc != CURLE_OK)
    throw invalid_request(param, fmt::format("{}: could not be fetched: {}", where, curl_easy_strerror(rc)));
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) throw invalid_request(param, fmt::format("{}: the server answered HTTP {}", where, status));
  const char* type = nullptr;
  curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type);
  return {std::move(t.body), media_type(type)};
}

}  // namespace ogai::serve
