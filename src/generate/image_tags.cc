#include "generate/image_tags.h"

#include <algorithm>
#include <cctype>

#include "base/error.h"

namespace ogai::generate {
namespace {

constexpr std::string_view kOpen = "<|image_", kClose = "|>";

// The tag at `at` (text[at..] starts with kOpen): its length and number, or 0 length when the
// digits are not followed by kClose (then it is text).
struct Tag {
  std::size_t length = 0;
  long long number = 0;
};

Tag read_tag(std::string_view text, std::size_t at) {
  std::size_t i = at + kOpen.size(), digits = 0;
  long long n = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (n <= kMaxImageTag) n = n * 10 + (text[i] - '0');
    ++i, ++digits;
  }
  if (digits == 0 || text.substr(i, kClose.size()) != kClose) return {};
  return {i + kClose.size() - at, n};
}

}  // namespace

std::vector<TokenId> encode_with_image_tags(const tokenizer::Tokenizer& tok, std::string_view text,
                                            bool add_special_tokens) {
  std::vector<TokenId> out;
  std::size_t piece = 0, search = 0;
  bool first = true;
  const auto flush = [&](std::size_t end) {
    const auto ids = tok.encode(text.substr(piece, end - piece), first && add_special_tokens);
    out.insert(out.end(), ids.begin(), ids.end());
    first = false;
  };
  while ((search = text.find(kOpen, search)) != std::string_view::npos) {
    const Tag tag = read_tag(text, search);
    if (tag.length == 0) {
      search += kOpen.size();
      continue;
    }
    if (tag.number < 1 || tag.number > kMaxImageTag)
      fail(ErrorCode::kInvalidArgument, "prompt", "the image tag '{}' is out of range: Phi-3-V's tags number the "
           "images from <|image_1|> (at most {})", text.substr(search, std::min<std::size_t>(tag.length, 32)),
           kMaxImageTag);
    flush(search);
    out.push_back(static_cast<TokenId>(-tag.number));
    piece = search = search + tag.length;
  }
  flush(text.size());
  return out;
}

}  // namespace ogai::generate
