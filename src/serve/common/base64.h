// Base64 (RFC 4648, standard alphabet) for media parts: strict decoding (padding optional,
// whitespace, URL-safe digits or data after the padding refused) and encoding. Linear time;
// the output is at most 3/4 of the input. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ogai::serve {

// The bytes `text` encodes, or nullopt when it is not base64; `bad_at` (when set) receives the
// offset of the first character that is not.
std::optional<std::string> decode_base64(std::string_view text, std::size_t* bad_at = nullptr);

std::string encode_base64(std::string_view bytes);

// The size decode_base64 would return for `text` of this length (upper bound, for budgets).
inline std::size_t decoded_size_bound(std::size_t text_size) { return text_size / 4 * 3 + 3; }

}  // namespace ogai::serve
