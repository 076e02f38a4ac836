#include "serve/http/arrival.h"

#include <sys/socket.h>

#include <algorithm>
#include <string>

#include "serve/http/message.h"

namespace ogai::serve::http {

Arrival peek_arrival(int fd, const Limits& limits, std::string_view read) {
  std::string bytes(read.substr(0, limits.max_header_bytes));
  const std::size_t have = bytes.size();
  bytes.resize(limits.max_header_bytes);
  ssize_t n = have < bytes.size() ? ::recv(fd, bytes.data() + have, bytes.size() - have, MSG_PEEK | MSG_DONTWAIT) : 0;
  bytes.resize(have + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
  Arrival a;
  a.whole_header = bytes.find("\r\n\r\n") != std::string::npos;
  if (!a.whole_header) return a;
  // The request line: METHOD SP target SP version.
  const std::string_view line(bytes.data(), bytes.find("\r\n"));
  const std::size_t first = line.find(' ');
  const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos) return a;
  const std::string_view path = route_path(line.substr(first + 1, second - first - 1));
  a.probe = std::ranges::find(limits.probe_paths, path) != limits.probe_paths.end();
  return a;
}

}  // namespace ogai::serve::http
