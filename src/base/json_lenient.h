// The lenient JSON parse, for callers that treat text that is not JSON as "not JSON" rather than
// as an error (a reply's tool-call arguments, a tool's schema string, a flag value): like
// J::parse(text, nullptr, false), but JSON nested more than kMaxJsonDepth deep (base/json_parse.h)
// also counts as not JSON, so no DOM is built that recursive printing or copying could overflow
// the stack on. Header-only; one pass, O(text); thread-safe.
#pragma once

#include <string_view>

#include "base/json_parse.h"

namespace ogai {

// A discarded value (is_discarded()) when `text` is not JSON or nests containers more than
// kMaxJsonDepth deep; never throws for either.
template <typename J>
J parse_json_or_discarded(std::string_view text) {
  bool too_deep = false;
  auto limit_depth = [&too_deep](int depth, nlohmann::json::parse_event_t event, J&) {
    bool opens = event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start;
    if (opens && depth >= kMaxJsonDepth) too_deep = true;
    return !too_deep;
  };
  J parsed = J::parse(text, limit_depth, /*allow_exceptions=*/false);
  if (too_deep) return J(J::value_t::discarded);
  return parsed;
}

}  // namespace ogai
