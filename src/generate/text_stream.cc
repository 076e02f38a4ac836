#include "generate/text_stream.h"

#include <algorithm>

namespace ogai::generate {

namespace {
constexpr std::size_t kPrimingTokens = 8;  // enough context for every decoder's start-of-text rules
}  // namespace

TextStream::TextStream(const tokenizer::Tokenizer& tokenizer, std::vector<std::string> stop_strings,
                       std::span<const TokenId> prompt, std::vector<TokenId> kept_specials)
    : decoder_(std::in_place, tokenizer, /*skip_special_tokens=*/true, kept_specials),
      matcher_(std::move(stop_strings)) {
  const auto context = prompt.last(std::min(prompt.size(), kPrimingTokens));
  std::string primed;
  for (TokenId id : context) primed += decoder_->step(id);
  // Prompt text the decoder still holds back (e.g. an incomplete character) comes out with the
  // first generated tokens; it is the prompt's, so it is dropped there.
  const std::string full = tokenizer.decode_keeping(context, kept_specials);
  if (full.size() > primed.size() && full.compare(0, primed.size(), primed) == 0) owed_ = full.substr(primed.size());
}

TextStream::TextStream(std::vector<std::string> stop_strings) : matcher_(std::move(stop_strings)) {}

std::string TextStream::piece_of(TokenId id) {
  if (decoder_) return decoder_->step(id);
  return (pushed_++ == 0 ? "" : " ") + std::to_string(id);
}

void TextStream::drop_owed(std::string& piece) {
  if (owed_.empty()) return;
  if (piece.compare(0, owed_.size(), owed_) == 0) {
    piece.erase(0, owed_.size());
    owed_.clear();
  } else if (owed_.compare(0, piece.size(), piece) == 0) {
    owed_.erase(0, piece.size());
    piece.clear();
  } else {
    owed_.clear();  // the generated text merged with it (e.g. completed a character): keep it whole
  }
}

std::string_view TextStream::emit(std::string chunk) {
  last_size_ = text_.size();
  text_ += chunk;
  return std::string_view(text_).substr(last_size_);
}

std::string_view TextStream::push(TokenId id) {
  std::string piece = piece_of(id);
  drop_owed(piece);
  if (piece.empty()) return {};
  return emit(matcher_.feed(piece).text);
}

std::string_view TextStream::finish() {
  if (matcher_.stopped()) return {};
  std::string flushed = decoder_ ? decoder_->flush() : std::string();
  drop_owed(flushed);
  std::string tail = matcher_.feed(flushed).text;
  if (!matcher_.stopped()) tail += matcher_.finish();
  return emit(std::move(tail));
}

}  // namespace ogai::generate
