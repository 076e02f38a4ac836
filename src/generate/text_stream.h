// TextStream: the text side of one generated sequence. Turns generated ids into printable text as
// soon as it is final (valid UTF-8, via the tokenizer's StreamingDecoder, special tokens skipped
// except `kept_specials`: the reply markers a response template reads, such as Gemma-4's
// <|tool_call> and <|channel>, which are special tokens of its tokenizer)
// and holds back any text that could still become a stop string (StopStringMatcher), so a stop
// string is never emitted, not even in part, however the tokens split it.
// The text is what follows the prompt in the decode of prompt + generated ids (Hugging Face's
// text-generation `return_full_text=False`): the decoder is primed with the prompt's last tokens,
// so decoder rules that apply to the start of a text (e.g. stripping the leading space of a
// SentencePiece "▁word") do not apply to the first generated token.
// Without a tokenizer (a tokenizer-less workflow package), the text is the ids in decimal, one
// space between them (as `ogai run` and `ogai generate` print them).
// Not thread-safe; one per sequence.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ogai/token_id.h"
#include "sampling/stop_strings.h"
#include "tokenizer/streaming_decoder.h"

namespace ogai::generate {

class TextStream {
 public:
  TextStream(const tokenizer::Tokenizer& tokenizer, std::vector<std::string> stop_strings,
             std::span<const TokenId> prompt = {}, std::vector<TokenId> kept_specials = {});
  // The ids-as-text stream.
  explicit TextStream(std::vector<std::string> stop_strings);

  // Feeds one generated id; returns the text that became safe to show (often empty). Valid until
  // the next call.
  std::string_view push(TokenId id);
  // Ends the stream (for a reason other than a stop string): returns what was held back.
  std::string_view finish();

  bool stopped() const { return matcher_.stopped(); }
  const std::string& text() const { return text_; }  // everything returned so far

 private:
  std::string_view emit(std::string chunk);
  void drop_owed(std::string& piece);

  std::string piece_of(TokenId id);

  std::optional<tokenizer::StreamingDecoder> decoder_;  // unset: ids as text
  std::size_t pushed_ = 0;
  sampling::StopStringMatcher matcher_;
  std::string text_;
  std::size_t last_size_ = 0;
  std::string owed_;  // prompt text the primed decoder had not released yet
};

}  // namespace ogai::generate
