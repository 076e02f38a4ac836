#include "base/secure_random.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/error.h"

namespace ogai {

std::string secure_random_hex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  std::size_t filled = 0;
  while (filled < bytes) {
    const ssize_t got = getrandom(raw.data() + filled, bytes - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(ErrorCode::kInternal, "getrandom", "the kernel's random source failed: {}", std::strerror(errno));
    }
    filled += static_cast<std::size_t>(got);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * bytes, '0');
  for (std::size_t i = 0; i < bytes; ++i) {
    out[2 * i] = kHex[raw[i] >> 4];
    out[2 * i + 1] = kHex[raw[i] & 15];
  }
  return out;
}

}  // namespace ogai
