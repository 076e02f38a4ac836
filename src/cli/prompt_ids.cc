#include "cli/prompt_ids.h"

#include <limits>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_parse.h"

namespace ogai::cli {

std::vector<std::int32_t> parse_prompt_ids(const std::string& json, const std::string& flag) {
  nlohmann::json j = parse_json_bounded<nlohmann::json>(json, flag);
  if (!j.is_array() || j.empty())
    fail(ErrorCode::kInvalidArgument, flag, "expected a non-empty JSON array of token ids, got {}", j.dump());
  std::vector<std::int32_t> ids;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& v = j[i];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
        v.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max())
      fail(ErrorCode::kInvalidArgument, flag, "element {} is {}, not a token id (an integer >= 0)", i, v.dump());
    ids.push_back(static_cast<std::int32_t>(v.get<std::int64_t>()));
  }
  return ids;
}

std::string ids_text(const std::vector<std::int32_t>& ids) {
  std::string text;
  for (std::int32_t id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
  return text;
}

}  // namespace ogai::cli
