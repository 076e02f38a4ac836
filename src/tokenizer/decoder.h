// Decoders of tokenizer.json ("decoder"): ByteLevel, Metaspace, ByteFallback, Fuse, Strip,
// Replace, WordPiece, BPEDecoder, CTC and Sequence, with Hugging Face's semantics: a decoder
// rewrites the list of token strings, and the text is their concatenation.
//
// To let the streaming decoder decode a window of tokens that does not start the text, a chain
// runs with a ChainState: `index_offset` is the position of the first token in the whole token
// list (decoders that treat the first token specially look at it), `final` says whether the
// last token ends the list (BPEDecoder's suffix), `prev` is the token before the window (CTC's
// de-duplication), and `joined` records that an earlier decoder fused the tokens into one
// string (so a later Strip knows whether that string starts the text). Built once at load;
// immutable and thread-safe afterwards.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/json.h"

namespace ogai::tokenizer {

struct ChainState {
  std::size_t index_offset = 0;
  bool final = true;
  const std::string* prev = nullptr;
  bool joined = false;
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode_chain(std::vector<std::string>& tokens, ChainState& state) const = 0;
  // Whether the chain regroups byte tokens (<0xXX>) across token boundaries.
  virtual bool uses_byte_fallback() const { return false; }
  // Whether text at the end of the list can still change when more tokens follow (beyond
  // incomplete UTF-8): Strip with stop > 0.
  virtual bool strips_end() const { return false; }
  // Whether the last token decodes differently from the others (BPEDecoder's suffix).
  virtual bool depends_on_last() const { return false; }
};

std::unique_ptr<Decoder> make_decoder(const JsonValue& value);

// Whether `token` is a byte-fallback token "<0xXX>" (and its byte).
bool parse_byte_token(std::string_view token, unsigned char* byte);

}  // namespace ogai::tokenizer
