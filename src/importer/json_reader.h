// Typed, fail-closed access to a parsed genai_config.json (internal to the importer).
//
// JsonReader names the file once and every value by its JSON path (`model.decoder.head_size`).
// closed() checks an object's keys against what the caller knows and what it refuses, so an
// unknown key is an error instead of being ignored. Errors: kParse for malformed JSON, duplicate
// keys or a wrongly typed value; kUnsupported for a refused key or value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace ogai::importer {

using Json = nlohmann::json;

// A refused key and the reason, e.g. {"pipeline", "multi-session decoder pipelines are not imported"}.
using Refusal = std::pair<std::string_view, std::string_view>;

class JsonReader {
 public:
  explicit JsonReader(std::filesystem::path origin) : origin_(std::move(origin)) {}

  // Parses `text` (duplicate keys refused). Throws kParse naming the origin.
  Json parse(const std::string& text) const;

  // Throws kUnsupported: "<path>: <why>".
  [[noreturn]] void refuse(const std::string& path, std::string_view why) const;
  // Throws kParse: "<path>: expected <what>, got <value>".
  [[noreturn]] void wrong_type(const std::string& path, std::string_view what, const Json& value) const;

  // Every key of `object` (at `path`) must be in `known` or `refused` (refused ones throw).
  void closed(const Json& object, const std::string& path, std::initializer_list<std::string_view> known,
              std::initializer_list<Refusal> refused = {}) const;

  const Json& object(const Json& value, const std::string& path) const;
  std::int64_t integer(const Json& value, const std::string& path) const;  // integral numbers only
  double number(const Json& value, const std::string& path) const;
  bool boolean(const Json& value, const std::string& path) const;
  std::string string(const Json& value, const std::string& path) const;

  // object[key] read as above when present (`parent` + key names it), else nullopt.
  std::optional<std::int64_t> optional_integer(const Json& object, const std::string& parent, const char* key) const;
  std::optional<double> optional_number(const Json& object, const std::string& parent, const char* key) const;
  std::optional<bool> optional_boolean(const Json& object, const std::string& parent, const char* key) const;
  // Sets `out` to object[key] when present (a string).
  void read_string(const Json& object, const std::string& parent, const char* key, std::string& out) const;

  const std::filesystem::path& origin() const { return origin_; }

 private:
  std::filesystem::path origin_;
};

// "a.b" from ("a", "b"); "b" when the parent is empty.
std::string join_path(const std::string& parent, std::string_view key);

}  // namespace ogai::importer
