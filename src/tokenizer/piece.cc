#include "tokenizer/piece.h"

#include "tokenizer/utf8.h"

namespace ogai::tokenizer {

Piece Piece::slice(std::size_t begin, std::size_t end) const {
  Piece p;
  p.text.assign(text, begin, end - begin);
  if (!origin.empty()) p.origin.assign(origin.begin() + begin, origin.begin() + end);
  return p;
}

void TextBuilder::push(char32_t c, std::size_t at) {
  std::size_t before = out_.text.size();
  append_utf8(out_.text, c);
  if (track_) out_.origin.insert(out_.origin.end(), out_.text.size() - before, source_.origin[at]);
}

void TextBuilder::push_bytes(std::string_view bytes, std::size_t at) {
  out_.text.append(bytes);
  if (track_) out_.origin.insert(out_.origin.end(), bytes.size(), source_.origin[at]);
}

void apply_transformations(Piece& piece, const std::vector<std::pair<char32_t, int>>& changes) {
  Piece out;
  std::size_t offset = 0;  // byte offset of the next input character
  const std::string& in = piece.text;
  auto origin_at = [&](std::size_t i) -> std::uint32_t {
    if (piece.origin.empty()) return 0;
    return piece.origin[std::min(i, piece.origin.size() - 1)];
  };
  auto skip_char = [&] {
    if (offset < in.size()) offset += utf8_len(static_cast<unsigned char>(in[offset]));
  };
  for (auto [c, change] : changes) {
    std::uint32_t origin = change > 0 ? (offset == 0 ? origin_at(0) : origin_at(offset - 1)) : origin_at(offset);
    std::size_t before = out.text.size();
    append_utf8(out.text, c);
    if (!piece.origin.empty()) out.origin.insert(out.origin.end(), out.text.size() - before, origin);
    if (change <= 0) skip_char();
    for (int k = change; k < 0; ++k) skip_char();
  }
  out.token = piece.token;
  piece = std::move(out);
}

std::vector<Span> spans_from_matches(const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                                     std::size_t size) {
  std::vector<Span> spans;
  if (size == 0) return {{0, 0, false}};
  std::size_t prev = 0;
  for (auto [s, e] : matches) {
    if (prev != s) spans.push_back({prev, s, false});
    spans.push_back({s, e, true});
    prev = e;
  }
  if (prev != size) spans.push_back({prev, size, false});
  return spans;
}

namespace {

// Ranges to keep, after the behavior merged or dropped delimiters.
std::vector<Span> apply_behavior(const std::vector<Span>& spans, SplitBehavior behavior) {
  std::vector<Span> out;  // is_match here means "remove"
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::kRemoved:
      return spans;
    case SplitBehavior::kIsolated:
      for (const Span& s : spans) out.push_back({s.start, s.end, false});
      return out;
    case SplitBehavior::kContiguous:
      for (const Span& s : spans) {
        if (s.is_match == previous_match && !out.empty()) out.back().end = s.end;
        else out.push_back({s.start, s.end, false});
        previous_match = s.is_match;
      }
      return out;
    case SplitBehavior::kMergedWithPrevious:
      for (const Span& s : spans) {
        if (s.is_match && !previous_match && !out.empty()) out.back().end = s.end;
        else out.push_back({s.start, s.end, false});
        previous_match = s.is_match;
      }
      return out;
    case SplitBehavior::kMergedWithNext:
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous_match && !out.empty()) out.back().start = it->start;
        else out.push_back({it->start, it->end, false});
        previous_match = it->is_match;
      }
      return {out.rbegin(), out.rend()};
  }
  return out;
}

}  // namespace

void split_piece(const Piece& piece, const std::vector<Span>& spans, SplitBehavior behavior,
                 std::vector<Piece>& out) {
  for (const Span& s : apply_behavior(spans, behavior))
    if (!s.is_match && s.end > s.start) out.push_back(piece.slice(s.start, s.end));
}

}  // namespace ogai::tokenizer
