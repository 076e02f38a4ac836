#include "serve/common/base64.h"

#include <array>
#include <cstdint>

namespace ogai::serve {
namespace {

constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> make_values() {
  std::array<std::int8_t, 256> v{};
  for (auto& x : v) x = -1;
  for (int i = 0; i < 64; ++i) v[static_cast<unsigned char>(kDigits[i])] = static_cast<std::int8_t>(i);
  return v;
}
constexpr std::array<std::int8_t, 256> kValues = make_values();

}  // namespace

std::optional<std::string> decode_base64(std::string_view text, std::size_t* bad_at) {
  std::size_t end = text.size();
  while (end > 0 && text.size() - end < 2 && text[end - 1] == '=') --end;  // up to two '='
  const std::size_t padding = text.size() - end;
  auto bad = [&](std::size_t at) -> std::optional<std::string> {
    if (bad_at) *bad_at = at;
    return std::nullopt;
  };
  for (std::size_t i = 0; i < end; ++i)
    if (kValues[static_cast<unsigned char>(text[i])] < 0) return bad(i);
  if (end % 4 == 1) return bad(end);                             // one digit cannot end a group
  if (padding > 0 && (end + padding) % 4 != 0) return bad(end);  // padding must complete the group
  std::string out;
  out.reserve(end / 4 * 3 + 2);
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::size_t i = 0; i < end; ++i) {
    const std::int8_t v = kValues[static_cast<unsigned char>(text[i])];
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

std::string encode_base64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto byte = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int s = 18; s >= 0; s -= 6) out += kDigits[(v >> s) & 63];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    const std::uint32_t v = byte(i) << 16 | (rest == 2 ? byte(i + 1) << 8 : 0);
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += rest == 2 ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace ogai::serve
