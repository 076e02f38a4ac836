#include "importer/json_reader.h"

#include <cmath>
#include <set>
#include <vector>

#include "base/error.h"
#include "base/json_parse.h"

namespace ogai::importer {

std::string join_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

Json JsonReader::parse(const std::string& text) const {
  std::vector<std::set<std::string>> keys;  // the keys seen in each open object
  std::string duplicate;
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    const bool opens = event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
    if (opens && depth >= kMaxJsonDepth)
      fail(ErrorCode::kParse, origin_.string(), "JSON nested more than {} levels deep", kMaxJsonDepth);
    if (event == Json::parse_event_t::object_start) keys.emplace_back();
    if (event == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == Json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
        duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  Json root;
  try {
    root = Json::parse(text, callback);
  } catch (const Json::exception& e) {
    fail(ErrorCode::kParse, origin_.string(), "not valid JSON: {}", e.what());
  }
  if (!duplicate.empty()) fail(ErrorCode::kParse, origin_.string(), "duplicate key '{}'", duplicate);
  return root;
}

void JsonReader::refuse(const std::string& path, std::string_view why) const {
  fail(ErrorCode::kUnsupported, origin_.string(), "{}: {}", path, why);
}

void JsonReader::wrong_type(const std::string& path, std::string_view what, const Json& value) const {
  constexpr std::size_t kShown = 200;  // a value quoted in a message: its start, not megabytes
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > kShown) text = text.substr(0, kShown) + fmt::format("... ({} bytes)", text.size());
  fail(ErrorCode::kParse, origin_.string(), "{}: expected {}, got {}", path, what, text);
}

void JsonReader::closed(const Json& object, const std::string& path, std::initializer_list<std::string_view> known,
                        std::initializer_list<Refusal> refused) const {
  for (const auto& [key, value] : object.items()) {
    for (const auto& [name, why] : refused)
      if (key == name) refuse(join_path(path, key), why);
    bool is_known = false;
    for (std::string_view name : known) is_known = is_known || key == name;
    if (!is_known)
      refuse(join_path(path, key), "not a field the importer knows; it refuses the file rather than ignore a setting");
  }
}

const Json& JsonReader::object(const Json& value, const std::string& path) const {
  if (!value.is_object()) wrong_type(path, "an object", value);
  return value;
}

std::int64_t JsonReader::integer(const Json& value, const std::string& path) const {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.0e15) return static_cast<std::int64_t>(d);
  }
  wrong_type(path, "an integer", value);
}

double JsonReader::number(const Json& value, const std::string& path) const {
  if (!value.is_number()) wrong_type(path, "a number", value);
  return value.get<double>();
}

bool JsonReader::boolean(const Json& value, const std::string& path) const {
  if (!value.is_boolean()) wrong_type(path, "true or false", value);
  return value.get<bool>();
}

std::string JsonReader::string(const Json& value, const std::string& path) const {
  if (!value.is_string()) wrong_type(path, "a string", value);
  return value.get<std::string>();
}

std::optional<std::int64_t> JsonReader::optional_integer(const Json& object, const std::string& parent,
                                                        const char* key) const {
  if (!object.contains(key)) return std::nullopt;
  return integer(object[key], join_path(parent, key));
}

std::optional<double> JsonReader::optional_number(const Json& object, const std::string& parent, const char* key) const {
  if (!object.contains(key)) return std::nullopt;
  return number(object[key], join_path(parent, key));
}

std::optional<bool> JsonReader::optional_boolean(const Json& object, const std::string& parent, const char* key) const {
  if (!object.contains(key)) return std::nullopt;
  return boolean(object[key], join_path(parent, key));
}

void JsonReader::read_string(const Json& object, const std::string& parent, const char* key, std::string& out) const {
  if (object.contains(key)) out = string(object[key], join_path(parent, key));
}

}  // namespace ogai::importer
