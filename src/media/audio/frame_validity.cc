#include "media/audio/frame_validity.h"

#include <algorithm>

namespace ogai::media::audio {
namespace {

// The smallest t >= 0 with t * hop >= x (x may be negative).
std::size_t first_at_least(long long x, long long hop) {
  return x <= 0 ? 0 : static_cast<std::size_t>((x + hop - 1) / hop);
}

}  // namespace

FrameRange valid_frame_range(std::size_t begin, std::size_t valid, std::size_t frames, const StftOptions& o,
                             FrameValidity rule) {
  const auto hop = static_cast<long long>(o.hop_length);
  std::size_t first = 0, end = 0;
  if (rule == FrameValidity::kHop) {
    first = static_cast<std::size_t>(static_cast<long long>(begin) / hop);
    end = first_at_least(static_cast<long long>(begin + valid), hop);
  } else {
    // e_t = t * hop - left_pad + extent - 1 must lie in [begin, begin + valid).
    const long long shift = static_cast<long long>(o.left_pad()) - o.extent() + 1;
    first = first_at_least(static_cast<long long>(begin) + shift, hop);
    end = first_at_least(static_cast<long long>(begin + valid) + shift, hop);
  }
  first = std::min(first, frames);
  end = std::clamp(end, first, frames);
  return {first, valid == 0 ? 0 : end - first};
}

}  // namespace ogai::media::audio
