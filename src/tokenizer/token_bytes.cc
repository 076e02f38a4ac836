#include "tokenizer/token_bytes.h"

#include "tokenizer/byte_level.h"
#include "tokenizer/pipeline.h"

namespace ogai::tokenizer {

std::string token_bytes(const Tokenizer& tokenizer, std::int32_t id) {
  const Pipeline& p = tokenizer.pipeline();
  auto text = p.token_text(id);
  if (!text) return {};
  unsigned char byte;
  if (p.decoder && p.decoder->uses_byte_fallback() && parse_byte_token(*text, &byte))
    return std::string(1, static_cast<char>(byte));
  ChainState state;
  state.index_offset = 1;  // not the first token of the text
  state.final = false;
  std::string piece = p.decode_tokens({std::string(*text)}, state);
  // A lossy decode (U+FFFD the token does not spell) of a byte-level token: its raw bytes.
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  if (piece.find(kReplacement) != std::string::npos && text->find(kReplacement) == std::string_view::npos) {
    std::string raw;
    if (byte_level_to_bytes(*text, raw)) return raw;
  }
  return piece;
}

}  // namespace ogai::tokenizer
