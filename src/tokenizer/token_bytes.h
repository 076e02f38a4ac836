// token_bytes(): the exact bytes one token contributes to a decoded text when it is not the
// text's first token (so "▁there" gives " there", not the start-of-text "there"). Used to show a
// token by itself, e.g. in log-probability reports.
//
// Byte tokens are exact: a byte-fallback token "<0xE2>" gives the byte 0xE2, a byte-level (GPT-2)
// token gives its raw bytes, even when they are not valid UTF-8 on their own (a full decode would
// show U+FFFD there). Special tokens give their content; an id naming no token gives "".
// Thread-safe (reads the immutable pipeline).
#pragma once

#include <cstdint>
#include <string>

#include "tokenizer/tokenizer.h"

namespace ogai::tokenizer {

std::string token_bytes(const Tokenizer& tokenizer, std::int32_t id);

}  // namespace ogai::tokenizer
