// TextStream: the text side of one generated sequence. Turns generated ids into printable text as
// soon as it is final (valid UTF-8, via the tokenizer's StreamingDecoder, special tokens skipped)
// and holds back any text that could still become a stop string (StopStringMatcher), so a stop
// string is never emitted, not even in part, however the tokens split it.
// Not thread-safe; one per sequence.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sampling/stop_strings.h"
#include "tokenizer/streaming_decoder.h"

namespace ogai::generate {

class TextStream {
 public:
  TextStream(const tokenizer::Tokenizer& tokenizer, std::vector<std::string> stop_strings);

  // Feeds one generated id; returns the text that became safe to show (often empty). Valid until
  // the next call.
  std::string_view push(std::int32_t id);
  // Ends the stream (for a reason other than a stop string): returns what was held back.
  std::string_view finish();

  bool stopped() const { return matcher_.stopped(); }
  const std::string& text() const { return text_; }  // everything returned so far

 private:
  std::string_view emit(std::string chunk);

  tokenizer::StreamingDecoder decoder_;
  sampling::StopStringMatcher matcher_;
  std::string text_;
  std::size_t last_size_ = 0;
};

}  // namespace ogai::generate
