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
  const std::size_t full = logits.size() / 64;
  for (std::size_t w = 0; w < full; ++w) {
    const std::uint64_t m = w < allowed.words.size() ? allowed.words[w] : 0;
    float* x = logits.data() + 64 * w;
    if (m == 0) {
      std::fill_n(x, 64, -INFINITY);
    } else if (m != ~std::uint64_t{0}) {
      detail::masked_block(x, m, x);
    }
  }
  for (std::size_t i = full * 64; i < logits.size(); ++i)
    if (!allowed.allows(i)) logits[i] = -INFINITY;
}

}  // namespace ogai::sampling
