// JSON text -> an nlohmann DOM (nlohmann::json or nlohmann::ordered_json) with the nesting limit
// enforced while parsing: a container deeper than kMaxJsonDepth stops the parse before anything
// deeper is built, so no later recursive step (copying, converting, printing) can overflow the
// stack. nlohmann's parser itself is iterative.
//
// Header-only (a template over the two DOM types); includers link nlohmann_json. Costs: one pass,
// O(text); thread-safe (no shared state).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/error.h"

namespace ogai {

// Containers nested in each other, the top-level one included.
inline constexpr int kMaxJsonDepth = 256;

// Throws ogai::Error kParse naming `origin`: "JSON nested more than 256 levels deep", or
// "invalid JSON: <nlohmann's reason with its byte position>".
template <typename J>
J parse_json_bounded(std::string_view text, const std::string& origin) {
  auto limit_depth = [&origin](int depth, nlohmann::json::parse_event_t event, J&) {
    bool opens = event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start;
    if (opens && depth >= kMaxJsonDepth) fail(ErrorCode::kParse, origin, "JSON nested more than {} levels deep", kMaxJsonDepth);
    return true;
  };
  try {
    return J::parse(text, limit_depth);
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorCode::kParse, origin, "invalid JSON: {}", e.what());
  }
}

}  // namespace ogai
