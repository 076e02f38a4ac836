// Reading tokenizer.json: a parsed document (simdjson DOM) and a value handle that knows its JSON
// path, so every error names the file and the path (`normalizer.normalizers[1].pattern`) and says
// what was expected. Malformed JSON fails with the line, column and byte offset of the problem.
// A JsonDocument owns the parsed tree; JsonValues borrow it and must not outlive it. Not
// thread-safe (used only while loading).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ogai::tokenizer {

class JsonValue;

class JsonDocument {
 public:
  // Parses `text`; `source` names it in errors (a file path or "<memory>").
  JsonDocument(std::string_view text, std::string source);
  // Reads and parses a file (one read into a padded buffer, no extra copy).
  static std::unique_ptr<JsonDocument> from_file(const std::filesystem::path& path);
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;

  JsonValue root() const;
  const std::string& source() const { return source_; }

 private:
  explicit JsonDocument(std::string source);
  // Parses `size` bytes at `data`, which must be followed by SIMDJSON_PADDING readable bytes.
  void parse(const char* data, std::size_t size);
  std::string source_;
  std::unique_ptr<simdjson::dom::parser> parser_;
  simdjson::dom::element root_;
};

class JsonValue {
 public:
  JsonValue(const JsonDocument* doc, simdjson::dom::element element, std::string path)
      : doc_(doc), el_(element), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  const std::string& source() const { return doc_->source(); }
  simdjson::dom::element raw() const { return el_; }

  bool is_null() const { return el_.is_null(); }
  bool is_object() const { return el_.is_object(); }
  bool is_array() const { return el_.is_array(); }
  bool is_string() const { return el_.is_string(); }

  // Object member access. find() returns nullopt when the key is absent; at() fails then.
  std::optional<JsonValue> find(std::string_view key) const;
  JsonValue at(std::string_view key) const;
  bool has(std::string_view key) const { return find(key).has_value(); }

  std::string_view as_string() const;
  bool as_bool() const;
  double as_double() const;
  std::int64_t as_int() const;
  std::vector<JsonValue> items() const;  // array elements

  // Optional members with defaults: absent or null -> the default.
  std::string string_or(std::string_view key, std::string_view fallback) const;
  std::optional<std::string> optional_string(std::string_view key) const;
  bool bool_or(std::string_view key, bool fallback) const;
  std::int64_t int_or(std::string_view key, std::int64_t fallback) const;

  // Throws kParse: "<source>: expected <what> at <path>, got <json type>".
  [[noreturn]] void fail_expected(std::string_view what) const;
  // Throws kUnsupported: "unsupported <kind> '<type>' at <path>".
  [[noreturn]] void fail_unsupported(std::string_view kind, std::string_view type) const;
  // Throws kParse with a free-form message about this value.
  [[noreturn]] void fail_invalid(std::string_view message) const;

 private:
  const JsonDocument* doc_;
  simdjson::dom::element el_;
  std::string path_;
};

// The name of a simdjson element type for messages ("a string", "an object", ...).
std::string_view json_type_name(simdjson::dom::element e);

}  // namespace ogai::tokenizer
