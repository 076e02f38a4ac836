#include "tokenizer/streaming_decoder.h"

#include <algorithm>

#include "tokenizer/pipeline.h"

namespace ogai::tokenizer {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of `s` without its trailing run of U+FFFD.
std::size_t without_trailing_replacements(const std::string& s) {
  std::size_t n = s.size();
  while (n >= 3 && std::string_view(s).substr(n - 3, 3) == kReplacement) n -= 3;
  return n;
}

}  // namespace

StreamingDecoder::StreamingDecoder(Tokenizer tokenizer, bool skip_special_tokens,
                                   std::vector<std::int32_t> kept_specials)
    : tokenizer_(std::move(tokenizer)), skip_special_(skip_special_tokens), kept_specials_(std::move(kept_specials)) {}

std::string StreamingDecoder::decode_window(bool final) const {
  ChainState state;
  state.index_offset = index_offset_;
  state.final = final;
  state.prev = has_prev_ ? &prev_ : nullptr;
  return tokenizer_.pipeline().decode_tokens(window_, state);
}

// How much of `text` (carry_ + the window's text) can no longer change: all of it but a trailing
// run of U+FFFD, and, for byte-fallback decoders, not the text of a trailing run of byte tokens
// (a byte group is judged as a whole, so a valid group can turn invalid when a byte follows).
std::size_t StreamingDecoder::stable_length(const std::string& text) {
  std::size_t stable = without_trailing_replacements(text);
  const Decoder* decoder = tokenizer_.pipeline().decoder.get();
  if (!decoder || !decoder->uses_byte_fallback()) return stable;
  std::size_t bytes = 0;
  unsigned char b;
  while (bytes < window_.size() && parse_byte_token(window_[window_.size() - 1 - bytes], &b)) ++bytes;
  if (bytes == 0) return stable;
  std::vector<std::string> tail(window_.end() - static_cast<std::ptrdiff_t>(bytes), window_.end());
  window_.resize(window_.size() - bytes);
  std::string head = carry_ + (window_.empty() ? std::string() : decode_window(true));
  window_.insert(window_.end(), tail.begin(), tail.end());
  std::size_t common = 0;
  while (common < head.size() && common < text.size() && head[common] == text[common]) ++common;
  while (common > 0 && common < text.size() && (static_cast<unsigned char>(text[common]) & 0xC0) == 0x80) --common;
  return std::min(stable, common);
}

bool StreamingDecoder::can_close_window(const std::string& text) const {
  if (text.ends_with(kReplacement)) return false;
  if (index_offset_ == 0 && text.empty()) return false;  // a leading Strip may still apply
  const Decoder* decoder = tokenizer_.pipeline().decoder.get();
  if (!decoder) return true;
  if (decoder->strips_end()) return false;
  unsigned char byte;
  if (decoder->uses_byte_fallback() && parse_byte_token(window_.back(), &byte)) return false;
  return true;
}

// True when the id just appended is a byte token that follows another one under a byte-fallback
// decoder. The run's text stays held back until it ends (stable_length), so this step could emit
// nothing new and decoding the window again is skipped: a run of N byte tokens then costs O(N)
// in all rather than O(N^2). (Text before the run that was held back only because the run's
// group decoded to U+FFFD comes out when the run ends instead of mid-run; the concatenation is
// unchanged.)
bool StreamingDecoder::extends_byte_run() const {
  const Decoder* decoder = tokenizer_.pipeline().decoder.get();
  if (!decoder || !decoder->uses_byte_fallback() || window_.size() < 2) return false;
  unsigned char b;
  return parse_byte_token(window_.back(), &b) && parse_byte_token(window_[window_.size() - 2], &b);
}

std::string StreamingDecoder::step(std::int32_t id) {
  const Pipeline& p = tokenizer_.pipeline();
  auto token = p.token_text(id);
  if (!token) return {};
  if (skip_special_ && p.added.is_special_content(*token) &&
      std::find(kept_specials_.begin(), kept_specials_.end(), id) == kept_specials_.end())
    return {};
  window_.emplace_back(*token);
  if (extends_byte_run()) return {};
  std::string text = carry_ + decode_window(true);
  std::size_t stable = stable_length(text);
  std::string out;
  if (stable > emitted_) {
    out = text.substr(emitted_, stable - emitted_);
    emitted_ = stable;
  }
  if (can_close_window(text)) close_window();
  return out;
}

// Commits the window's text to carry_. A decoder that treats the last token specially keeps it
// in the window (its text is not final until the next token arrives).
void StreamingDecoder::close_window() {
  const Decoder* decoder = tokenizer_.pipeline().decoder.get();
  std::size_t keep = decoder && decoder->depends_on_last() ? 1 : 0;
  std::vector<std::string> last(window_.end() - static_cast<std::ptrdiff_t>(keep), window_.end());
  window_.resize(window_.size() - keep);
  std::string closed = carry_ + (window_.empty() ? std::string() : decode_window(false));
  carry_ = emitted_ < closed.size() ? closed.substr(emitted_) : std::string();
  emitted_ = emitted_ > closed.size() ? emitted_ - closed.size() : 0;
  index_offset_ += window_.size();
  if (!window_.empty()) prev_ = window_.back(), has_prev_ = true;
  window_ = std::move(last);
}

std::string StreamingDecoder::flush() {
  std::string text = carry_ + (window_.empty() ? std::string() : decode_window(true));
  std::string out = emitted_ < text.size() ? text.substr(emitted_) : std::string();
  reset();
  return out;
}

void StreamingDecoder::reset() {
  window_.clear();
  index_offset_ = 0;
  prev_.clear();
  has_prev_ = false;
  carry_.clear();
  emitted_ = 0;
}

}  // namespace ogai::tokenizer
