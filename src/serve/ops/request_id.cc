#include "serve/ops/request_id.h"

#include "base/secure_random.h"

namespace ogai::serve {

bool usable_request_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id)
    if (c <= ' ' || c > '~' || c == '"' || c == '\\') return false;
  return true;
}

std::string RequestIds::id_for(std::string_view sent) {
  if (usable_request_id(sent)) return std::string(sent);
  return secure_random_hex(16);
}

}  // namespace ogai::serve
