// Request ids: the client's `x-request-id` when it sent a usable one (1 to 128 visible ASCII
// characters, no spaces or quotes), else a new random one (32 hex digits). Every answer carries
// it back as `x-request-id`, and every log line about the request names it.
// Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace ogai::serve {

inline constexpr std::size_t kMaxRequestIdLength = 128;

// Whether `id` may be echoed (and logged) as it is.
bool usable_request_id(std::string_view id);

class RequestIds {
 public:
  // `sent` (the request's x-request-id header, may be empty) when usable, else a new id (128 bits
  // from the kernel's CSPRNG).
  std::string id_for(std::string_view sent);
};

}  // namespace ogai::serve
