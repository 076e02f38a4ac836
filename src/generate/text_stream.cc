#include "generate/text_stream.h"

namespace ogai::generate {

TextStream::TextStream(const tokenizer::Tokenizer& tokenizer, std::vector<std::string> stop_strings)
    : decoder_(tokenizer, /*skip_special_tokens=*/true), matcher_(std::move(stop_strings)) {}

std::string_view TextStream::emit(std::string chunk) {
  last_size_ = text_.size();
  text_ += chunk;
  return std::string_view(text_).substr(last_size_);
}

std::string_view TextStream::push(std::int32_t id) {
  std::string piece = decoder_.step(id);
  if (piece.empty()) return {};
  return emit(matcher_.feed(piece).text);
}

std::string_view TextStream::finish() {
  if (matcher_.stopped()) return {};
  std::string tail = matcher_.feed(decoder_.flush()).text;
  if (!matcher_.stopped()) tail += matcher_.finish();
  return emit(std::move(tail));
}

}  // namespace ogai::generate
