// The text a tokenizer pipeline passes between its stages.
//
// A Piece is a run of (normalized) text on its way to the model, or an added token that was
// already recognized (token >= 0). When the pipeline needs to know where a piece came from in
// the input (only Metaspace's prepend_scheme "first" does), `origin` holds, for each byte of
// `text`, the byte offset in the input of the character it came from; otherwise it is empty and
// every transform skips it. Value types; not shared between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ogai::tokenizer {

struct Piece {
  std::string text;
  std::vector<std::uint32_t> origin;  // empty, or one input offset per byte of text
  std::int32_t token = -1;            // an added token's id, or -1 for text still to tokenize

  // The input offset the piece starts at (only meaningful when tracking).
  std::uint32_t start_origin() const { return origin.empty() ? 0 : origin.front(); }
  Piece slice(std::size_t begin, std::size_t end) const;
};

// Builds a new text from an old one character by character, keeping origins when tracked.
class TextBuilder {
 public:
  explicit TextBuilder(const Piece& source) : track_(!source.origin.empty()), source_(source) {
    out_.text.reserve(source.text.size());
    if (track_) out_.origin.reserve(source.text.size());
  }
  // Appends `c` as coming from the input character at source byte `at`.
  void push(char32_t c, std::size_t at);
  void push_bytes(std::string_view bytes, std::size_t at);
  Piece finish() { return std::move(out_); }

 private:
  bool track_;
  const Piece& source_;
  Piece out_;
};

// Rebuilds `piece` from Hugging Face-style transformations: each output character with a change
// (1: inserted; 0: replaces the next input character; -n: replaces it and removes n more).
// Origins follow Hugging Face's alignment rule, quirks included (an inserted character takes the
// origin of the character before it). Used where those quirks decide what "first" means.
void apply_transformations(Piece& piece, const std::vector<std::pair<char32_t, int>>& changes);

// How a split keeps the delimiters it found (Hugging Face's SplitDelimiterBehavior).
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// A partition of a text: [start, end) ranges in order, each flagged as a match or not.
struct Span {
  std::size_t start, end;
  bool is_match;
};

// Turns matches into the full partition of a text of `size` bytes (gaps become non-matches).
std::vector<Span> spans_from_matches(const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                                     std::size_t size);

// Applies `behavior` to a partition and appends the non-empty resulting slices of `piece`.
void split_piece(const Piece& piece, const std::vector<Span>& spans, SplitBehavior behavior,
                 std::vector<Piece>& out);

}  // namespace ogai::tokenizer
