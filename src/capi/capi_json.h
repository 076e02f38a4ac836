// The C API's lenient JSON parse of caller text (messages, a reply): like nlohmann's
// parse(text, nullptr, false), but containers nested more than kMaxCallerJsonDepth deep also
// give a discarded value, so no DOM deep enough to overflow a recursive copy or print is built.
// The C API sees include/ only, so this mirrors base/json_lenient.h with its own bound.
// Header-only; one pass, O(text); thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace ogai::capi {

inline constexpr int kMaxCallerJsonDepth = 256;

template <typename J>
J parse_json_or_discarded(std::string_view text) {
  bool too_deep = false;
  auto limit_depth = [&too_deep](int depth, nlohmann::json::parse_event_t event, J&) {
    const bool opens =
        event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start;
    if (opens && depth >= kMaxCallerJsonDepth) too_deep = true;
    return !too_deep;
  };
  J parsed = J::parse(text, limit_depth, /*allow_exceptions=*/false);
  if (too_deep) return J(J::value_t::discarded);
  return parsed;
}

}  // namespace ogai::capi
