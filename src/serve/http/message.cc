#include "serve/http/message.h"

#include <ostream>  // before Beast's headers, which use it without including it

#include <boost/beast/http/status.hpp>

#include <algorithm>
#include <cctype>

namespace ogai::serve::http {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](unsigned char x, unsigned char y) { return std::tolower(x) == std::tolower(y); });
}

std::string_view path_of(std::string_view target) {
  return target.substr(0, std::min(target.find('?'), target.size()));
}

}  // namespace

std::string_view route_path(std::string_view target) {
  const std::size_t scheme = target.find("://");
  const bool absolute = !target.starts_with('/') && scheme != std::string_view::npos &&
                        (iequals(target.substr(0, scheme), "http") || iequals(target.substr(0, scheme), "https"));
  if (!absolute) return path_of(target);
  const std::size_t start = target.find_first_of("/?", scheme + 3);
  if (start == std::string_view::npos || target[start] == '?') return "/";
  return path_of(target.substr(start));
}

std::string_view Request::header(std::string_view name) const {
  for (const Field& f : fields)
    if (iequals(f.first, name)) return f.second;
  return {};
}

std::string_view reason_phrase(int status) {
  const auto text = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
  return {text.data(), text.size()};
}

}  // namespace ogai::serve::http
