#include "grammar/codepoints.h"

#include <algorithm>

#include "tokenizer/utf8.h"

namespace ogai::grammar {
namespace {

constexpr std::uint32_t kSurrogateLo = 0xD800, kSurrogateHi = 0xDFFF;

int utf8_length(std::uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }

std::vector<std::uint8_t> encode(std::uint32_t cp) {
  std::string s;
  append_utf8(s, cp);
  return {s.begin(), s.end()};
}

// Encodings of [lo, hi], both of the same UTF-8 length, as byte-set sequences.
void split(std::uint32_t lo, std::uint32_t hi, std::vector<std::vector<ByteSet>>& out) {
  const int n = utf8_length(lo);
  for (int i = 1; i < n; ++i) {
    const std::uint32_t m = (1u << (6 * i)) - 1;
    if ((lo & ~m) != (hi & ~m)) {
      if ((lo & m) != 0) {
        split(lo, lo | m, out);
        split((lo | m) + 1, hi, out);
        return;
      }
      if ((hi & m) != m) {
        split(lo, (hi & ~m) - 1, out);
        split(hi & ~m, hi, out);
        return;
      }
    }
  }
  const auto a = encode(lo), b = encode(hi);
  std::vector<ByteSet> seq;
  for (int k = 0; k < n; ++k) seq.push_back(ByteSet::range(a[k], b[k]));
  out.push_back(std::move(seq));
}

}  // namespace

void append_utf8(std::string& out, std::uint32_t cp) { tokenizer::append_utf8(out, static_cast<char32_t>(cp)); }

void CodepointSet::add(std::uint32_t lo, std::uint32_t hi) {
  hi = std::min(hi, kMaxCodepoint);
  if (lo > hi) return;
  if (lo < kSurrogateLo && hi >= kSurrogateLo) {
    ranges_.emplace_back(lo, kSurrogateLo - 1);
    if (hi > kSurrogateHi) ranges_.emplace_back(kSurrogateHi + 1, hi);
  } else if (lo >= kSurrogateLo && lo <= kSurrogateHi) {
    if (hi > kSurrogateHi) ranges_.emplace_back(kSurrogateHi + 1, hi);
  } else {
    ranges_.emplace_back(lo, hi);
  }
  normalize();
}

void CodepointSet::add(const CodepointSet& other) {
  ranges_.insert(ranges_.end(), other.ranges_.begin(), other.ranges_.end());
  normalize();
}

void CodepointSet::normalize() {
  std::sort(ranges_.begin(), ranges_.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> merged;
  for (const auto& r : ranges_) {
    if (!merged.empty() && r.first <= merged.back().second + 1)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  }
  ranges_ = std::move(merged);
}

CodepointSet CodepointSet::complement() const {
  CodepointSet out;
  std::uint32_t next = 0;
  for (const auto& [lo, hi] : ranges_) {
    if (lo > next) out.add(next, lo - 1);
    next = hi + 1;
  }
  if (next <= kMaxCodepoint) out.add(next, kMaxCodepoint);
  return out;
}

bool CodepointSet::contains(std::uint32_t cp) const {
  for (const auto& [lo, hi] : ranges_)
    if (cp >= lo && cp <= hi) return true;
  return false;
}

std::vector<std::vector<ByteSet>> utf8_sequences(const CodepointSet& set) {
  std::vector<std::vector<ByteSet>> out;
  constexpr std::uint32_t kBounds[] = {0x7F, 0x7FF, 0xFFFF, kMaxCodepoint};
  for (auto [lo, hi] : set.ranges()) {
    for (std::uint32_t bound : kBounds) {
      if (lo > hi) break;
      if (lo > bound) continue;
      const std::uint32_t top = std::min(hi, bound);
      split(lo, top, out);
      lo = top + 1;
    }
  }
  // Single-byte sequences merge into one set.
  std::vector<std::vector<ByteSet>> merged;
  ByteSet ascii;
  for (auto& seq : out) {
    if (seq.size() == 1) ascii.add(seq[0]);
    else merged.push_back(std::move(seq));
  }
  if (!ascii.empty()) merged.insert(merged.begin(), std::vector<ByteSet>{ascii});
  return merged;
}

Sequence utf8_class(GrammarBuilder& builder, const CodepointSet& set, const std::string& name) {
  auto seqs = utf8_sequences(set);
  if (seqs.size() == 1 && seqs[0].size() == 1) return {builder.bytes(seqs[0][0])};
  std::vector<Sequence> alts;
  for (const auto& seq : seqs) {
    Sequence alt;
    for (const ByteSet& b : seq) alt.push_back(builder.bytes(b));
    alts.push_back(std::move(alt));
  }
  return {GrammarBuilder::ref(builder.rule(name, std::move(alts)))};
}

}  // namespace ogai::grammar
