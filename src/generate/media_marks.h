// Where media sit in a token stream, so that a KV state is reused only for the media it was
// computed from. A prompt expanded for an image holds the same soft tokens whatever the image
// (docs/multimodal.md), so tokens alone cannot key a prefix: every comparison of a state's tokens
// with a prompt (reuse_prefix, the prefix cache, prefill_remaining) goes through
// common_media_prefix(), which stops at the first media span the two sides do not share.
//
// Identity is exact: the digest picks candidates, and the feature bytes (shared, immutable)
// decide. Plain values; thread-safe to read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ogai/token_id.h"

namespace ogai::generate {

struct MediaMark {
  std::size_t begin = 0;   // the first soft token's position
  std::size_t length = 0;  // soft tokens
  std::uint64_t digest = 0;
  std::shared_ptr<const std::vector<std::uint8_t>> content;  // the feature bytes the digest is of
  std::size_t port = 0;                                      // the embedding input they feed
  bool same_media(const MediaMark& other) const;
};
using MediaMarks = std::vector<MediaMark>;

// The length of the longest common prefix of `a` and `b` that covers no media span unless both
// sides hold the same media there (a span cut by the end of the prefix counts as covered).
std::size_t common_media_prefix(std::span<const TokenId> a, const MediaMarks& a_marks, std::span<const TokenId> b,
                                const MediaMarks& b_marks);

// Drops the marks of spans starting at or after `length` (a state truncated to `length` tokens).
void keep_marks(MediaMarks& marks, std::size_t length);

// Adds the marks of `prompt` that start in [begin, end) and are not in `marks` yet.
void add_marks(MediaMarks& marks, const MediaMarks& prompt, std::size_t begin, std::size_t end);

// FNV-1a over bytes (the candidate filter of same_media; equality is decided on the bytes).
std::uint64_t media_digest(std::span<const std::uint8_t> bytes);

}  // namespace ogai::generate
