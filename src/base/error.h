// Internal helpers for raising ogai::Error with fmt-formatted messages.
#pragma once

#include <fmt/format.h>

#include "ogai/error.h"

namespace ogai {

template <typename... Args>
[[noreturn]] void fail(ErrorCode code, std::string where, fmt::format_string<Args...> format,
                       Args&&... args) {
  throw Error(code, std::move(where), fmt::format(format, std::forward<Args>(args)...));
}

// OGAI_CHECK(cond) << nothing: for invariants only (bugs), not for user input.
#define OGAI_CHECK(cond)                                                                  \
  do {                                                                                    \
    if (!(cond)) ::ogai::fail(::ogai::ErrorCode::kInternal, __FILE__, "check failed: {}", \
                              #cond);                                                     \
  } while (0)

}  // namespace ogai
