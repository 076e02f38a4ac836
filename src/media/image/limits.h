// Budgets for decoding one image, checked from the header before any pixel is decoded: a
// decompression bomb (a small file declaring a huge canvas) is refused without allocating it.
// Defaults are safe for a server; the CLI and server expose them as flags.
#pragma once

#include <cstdint>
#include <string>

namespace ogai::media {

struct ImageLimits {
  std::uint64_t max_encoded_bytes = 64ull << 20;   // the file itself
  std::uint64_t max_pixels = 50'000'000;          // width x height (Pillow warns at 89M, refuses at 179M)
  std::uint64_t max_decoded_bytes = 256ull << 20;  // width x height x channels of the decoder's output
};

// Throws kInvalidArgument naming `what` (the input) and `format` when a header's dimensions are
// zero or break the budget.
void check_dimensions(std::uint64_t width, std::uint64_t height, std::uint64_t channels, const ImageLimits& limits,
                      const std::string& what, const char* format);

}  // namespace ogai::media
