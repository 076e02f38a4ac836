// GPT-2's byte-level alphabet: each of the 256 byte values is shown as a printable code point
// (printable Latin-1 bytes as themselves, the others as U+0100 onwards), so that any byte string
// is a text. Used by the ByteLevel normalizer, pre-tokenizer and decoder. Constant tables;
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ogai::tokenizer {

char32_t byte_to_char(std::uint8_t byte);
// The byte a code point of the alphabet stands for, or -1 when it is not in the alphabet.
int char_to_byte(char32_t c);
// The UTF-8 encoding of byte_to_char(byte).
std::string_view byte_char_utf8(std::uint8_t byte);

// Appends the alphabet text of `bytes`.
void append_byte_level(std::string& out, std::string_view bytes);

// Bytes of a byte-level text; false when some character is not in the alphabet (`out` then
// holds partial output).
bool byte_level_to_bytes(std::string_view text, std::string& out);

}  // namespace ogai::tokenizer
