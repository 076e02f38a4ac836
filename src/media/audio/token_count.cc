#include "media/audio/token_count.h"

#include <algorithm>

namespace ogai::media::audio {

std::int64_t token_count(std::int64_t t, const std::vector<Convolution>& convolutions, std::int64_t max_tokens) {
  for (const auto& c : convolutions) {
    if (t <= 0) return 0;
    const std::int64_t span = t + 2 * c.padding - c.kernel;
    t = span < 0 ? 0 : span / c.stride + 1;
  }
  t = std::max<std::int64_t>(t, 0);
  return max_tokens > 0 ? std::min(t, max_tokens) : t;
}

}  // namespace ogai::media::audio
