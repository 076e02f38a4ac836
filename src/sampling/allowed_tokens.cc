#include "sampling/allowed_tokens.h"

#include <bit>

namespace ogai::sampling {

std::size_t AllowedTokens::count(std::size_t vocab_size) const {
  std::size_t n = 0;
  for (std::size_t w = 0; w < words.size() && w * 64 < vocab_size; ++w) {
    const std::size_t bits = std::min<std::size_t>(64, vocab_size - w * 64);
    const std::uint64_t live = bits == 64 ? words[w] : words[w] & ((std::uint64_t{1} << bits) - 1);
    n += static_cast<std::size_t>(std::popcount(live));
  }
  return n;
}

void materialize(const AllowedTokens& allowed, std::span<float> logits) {
  for_each_allowed_block(
      logits, allowed,
      [&](const float* x, std::size_t begin, std::size_t n) {
        if (x != logits.data() + begin) std::copy_n(x, n, logits.data() + begin);
      },
      [&](std::size_t begin, std::size_t n) { std::fill_n(logits.data() + begin, n, -INFINITY); });
}

namespace detail {

const std::array<std::array<std::uint32_t, 8>, 256>& lane_masks() {
  static const auto table = [] {
    std::array<std::array<std::uint32_t, 8>, 256> t{};
    for (std::size_t b = 0; b < 256; ++b)
      for (std::size_t j = 0; j < 8; ++j) t[b][j] = ((b >> j) & 1) ? 0xFFFFFFFFu : 0u;
    return t;
  }();
  return table;
}

}  // namespace detail
}  // namespace ogai::sampling
