#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

struct Tables {
  std::array<char32_t, 256> to_char{};
  std::array<std::string, 256> utf8{};
  std::array<std::int16_t, 324> to_byte{};  // code points below 0x144
  Tables() {
    to_byte.fill(-1);
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      to_char[b] = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + n++);
      utf8[b] = ogai::tokenizer::utf8(to_char[b]);
      to_byte[to_char[b]] = static_cast<std::int16_t>(b);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

char32_t byte_to_char(std::uint8_t byte) { return tables().to_char[byte]; }

int char_to_byte(char32_t c) { return c < 324 ? tables().to_byte[c] : -1; }

std::string_view byte_char_utf8(std::uint8_t byte) { return tables().utf8[byte]; }

void append_byte_level(std::string& out, std::string_view bytes) {
  const Tables& t = tables();
  for (char c : bytes) out += t.utf8[static_cast<std::uint8_t>(c)];
}

bool byte_level_to_bytes(std::string_view text, std::string& out) {
  for (std::size_t i = 0; i < text.size();) {
    int b = char_to_byte(next_char(text, i));
    if (b < 0) return false;
    out.push_back(static_cast<char>(b));
  }
  return true;
}

}  // namespace ogai::tokenizer
