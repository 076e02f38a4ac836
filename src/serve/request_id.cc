#include "serve/request_id.h"

#include <fmt/format.h>

namespace ogai::serve {

bool usable_request_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id)
    if (c <= ' ' || c > '~' || c == '"' || c == '\\') return false;
  return true;
}

RequestIds::RequestIds() : rng_(std::random_device{}()) {}

std::string RequestIds::id_for(std::string_view sent) {
  if (usable_request_id(sent)) return std::string(sent);
  std::lock_guard lock(mutex_);
  const std::uint64_t hi = rng_(), lo = rng_();
  return fmt::format("{:016x}{:016x}", hi, lo);
}

}  // namespace ogai::serve
