#include "generate/media_marks.h"

#include <algorithm>

namespace ogai::generate {
namespace {

const MediaMark* at(const MediaMarks& marks, std::size_t begin) {
  for (const auto& m : marks)
    if (m.begin == begin) return &m;
  return nullptr;
}

// Shortens `common` to the first span of `from` below it that `other` does not share.
std::size_t limit(std::size_t common, const MediaMarks& from, const MediaMarks& other) {
  for (const auto& m : from) {
    if (m.begin >= common) continue;
    const MediaMark* o = at(other, m.begin);
    if (o == nullptr || !m.same_media(*o)) common = m.begin;
  }
  return common;
}

}  // namespace

bool MediaMark::same_media(const MediaMark& other) const {
  if (length != other.length || digest != other.digest || port != other.port) return false;
  if (content == other.content) return true;
  return content && other.content && *content == *other.content;
}

std::size_t common_media_prefix(std::span<const TokenId> a, const MediaMarks& a_marks, std::span<const TokenId> b,
                                const MediaMarks& b_marks) {
  auto mismatch = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  std::size_t common = static_cast<std::size_t>(mismatch.first - a.begin());
  common = limit(common, a_marks, b_marks);
  return limit(common, b_marks, a_marks);
}

void keep_marks(MediaMarks& marks, std::size_t length) {
  std::erase_if(marks, [&](const MediaMark& m) { return m.begin >= length; });
}

void add_marks(MediaMarks& marks, const MediaMarks& prompt, std::size_t begin, std::size_t end) {
  for (const auto& m : prompt)
    if (m.begin >= begin && m.begin < end && at(marks, m.begin) == nullptr) marks.push_back(m);
}

std::uint64_t media_digest(std::span<const std::uint8_t> bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::uint8_t b : bytes) {
    h ^= b;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace ogai::generate
