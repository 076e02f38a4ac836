// Shared by the libFuzzer targets: the only failure an input may cause is ogai::Error (or a
// template's own error type converted to it); anything else (another exception, a crash, a hang,
// a leak, a sanitizer report) is a bug the fuzzer reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ogai/error.h"

namespace ogai::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `body`, swallowing ogai::Error only.
template <typename F>
void expect_only_ogai_errors(F&& body) {
  try {
    body();
  } catch (const Error&) {
  }
}

}  // namespace ogai::fuzz
