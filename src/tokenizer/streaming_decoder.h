// StreamingDecoder: turns ids into text one id at a time, for streaming generation.
//
// step(id) returns the text that id made final, as soon as it is valid UTF-8; flush() returns
// what is still held back at the end of the stream. The concatenation of every step() result
// and flush() equals Tokenizer::decode() of all the ids (with the same skip_special_tokens),
// including byte-fallback sequences, multi-byte characters split across tokens and the
// first-token rules of Metaspace/WordPiece/Strip decoders.
//
// How: ids since the last safe boundary form a window that is re-decoded with the decoder chain
// told where the window sits (ChainState); text is held back while it ends in U+FFFD (bytes
// that a later token may complete). A boundary is safe when the window ends in complete text
// and, for byte-fallback decoders, not in a byte token; decoders that strip the end of the text
// (Strip with stop > 0) never close the window. So each step costs the size of the window,
// usually one or a few tokens; a byte token that extends a run of byte tokens costs O(1) (a
// run of N byte tokens is decoded once, when it ends: O(N) in all, not O(N^2)).
//
// Threads: one StreamingDecoder per stream; not thread-safe itself. It holds a Tokenizer handle,
// so it may outlive the Tokenizer object it was made from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace ogai::tokenizer {

class StreamingDecoder {
 public:
  // With skip_special_tokens, the special tokens in `kept_specials` still spell their text.
  explicit StreamingDecoder(Tokenizer tokenizer, bool skip_special_tokens = false,
                            std::vector<std::int32_t> kept_specials = {});

  // Feeds one id; returns the newly final text (often empty). Unknown ids are ignored.
  std::string step(std::int32_t id);
  // Ends the stream: returns the remaining text. The decoder is then reset.
  std::string flush();
  // Forgets all state (a new stream).
  void reset();

 private:
  std::string decode_window(bool final) const;
  std::size_t stable_length(const std::string& text);
  bool can_close_window(const std::string& text) const;
  bool extends_byte_run() const;
  void close_window();

  Tokenizer tokenizer_;
  bool skip_special_;
  std::vector<std::int32_t> kept_specials_;
  std::vector<std::string> window_;  // tokens since the last boundary
  std::size_t index_offset_ = 0;     // tokens before the window
  std::string prev_;                 // the token before the window
  bool has_prev_ = false;
  std::string carry_;                // text of closed windows not yet returned
  std::size_t emitted_ = 0;          // bytes of carry_ + window text already returned
};

}  // namespace ogai::tokenizer
