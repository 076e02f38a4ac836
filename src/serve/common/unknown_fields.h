// Request fields the server does not know. OpenAI clients send fields ogai does not read; by
// default they are ignored and named in one warning per request (what vLLM does); with
// `--strict-requests` the request is refused with a 400 naming them. Known = every field the
// parser reads or refuses by name, the fields other parts of the server read (tools, tool_choice,
// parallel_tool_calls, chat_template_kwargs), and metadata clients commonly send that changes
// nothing here (user, metadata, store, service_tier). Only top-level fields are checked.
// Pure functions; thread-safe.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/common/api_error.h"

namespace ogai::serve {

// The known top-level fields of a chat or completion request.
std::span<const std::string_view> known_fields(Endpoint endpoint);

// The keys of `body` (an object; nlohmann::json or the ordered request DOM) not in `known`, sorted.
template <class Json>
std::vector<std::string> unknown_fields(const Json& body, std::span<const std::string_view> known) {
  std::vector<std::string> unknown;
  if (!body.is_object()) return unknown;
  for (auto it = body.begin(); it != body.end(); ++it)
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) unknown.push_back(it.key());
  std::sort(unknown.begin(), unknown.end());
  return unknown;
}

// 400 naming them (param = the first), for --strict-requests.
ApiError unknown_fields_error(const std::vector<std::string>& names);
// "a, b, c".
std::string joined(const std::vector<std::string>& names);

}  // namespace ogai::serve
