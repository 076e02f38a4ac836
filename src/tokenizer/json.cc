#include "tokenizer/json.h"

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "tokenizer/huge_pages.h"

namespace ogai::tokenizer {
namespace {

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

// Re-parses malformed text with nlohmann to find where it breaks (simdjson reports no position).
[[noreturn]] void fail_malformed(std::string_view text, const std::string& source, const char* simd_error) {
  std::size_t byte = 0;
  std::string reason = simd_error;
  try {
    nlohmann::json parsed = nlohmann::json::parse(text);  // throws where the text breaks
    (void)parsed;
  } catch (const nlohmann::json::parse_error& e) {
    byte = e.byte == 0 ? 0 : e.byte - 1;
    reason = e.what();
    if (auto p = reason.find("; "); p != std::string::npos) reason = reason.substr(p + 2);
  }
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, column = 1;
    else ++column;
  }
  fail(ErrorCode::kParse, source, "malformed JSON at line {}, column {} (byte {}): {}", line, column, byte, reason);
}

}  // namespace

JsonDocument::JsonDocument(std::string source)
    : source_(std::move(source)), parser_(std::make_unique<simdjson::dom::parser>()) {}

JsonDocument::JsonDocument(std::string_view text, std::string source) : JsonDocument(std::move(source)) {
  simdjson::padded_string padded(text);
  parse(padded.data(), padded.size());
}

void JsonDocument::parse(const char* data, std::size_t size) {
  // Allocate the parser's buffers first and ask for huge pages on them before they are touched.
  std::size_t capacity = std::max<std::size_t>(size, 1);
  if (parser_->allocate(capacity) || parser_->doc.allocate(capacity))
    fail(ErrorCode::kRuntime, source_, "out of memory parsing {} bytes of JSON", size);
  advise_huge_pages(parser_->doc.tape.get(), 8 * capacity);
  advise_huge_pages(parser_->doc.string_buf.get(), 5 * capacity / 3);
  advise_huge_pages(parser_->implementation->structural_indexes.get(), 4 * capacity);
  // The DOM keeps its own copies of strings, so `data` may go away after this.
  auto error = parser_->parse(reinterpret_cast<const std::uint8_t*>(data), size, false).get(root_);
  if (error) fail_malformed(std::string_view(data, size), source_, simdjson::error_message(error));
}

// The file mapped read-only, followed by zeroed padding: an anonymous mapping of the padded size
// with the file mapped over its start (no copy, and page-cache pages need no zeroing).
class PaddedMapping {
 public:
  PaddedMapping(const std::filesystem::path& path, std::size_t padding) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(ErrorCode::kNotFound, path.string(), "cannot open: {}", std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) != 0) {
      ::close(fd);
      fail(ErrorCode::kRuntime, path.string(), "cannot stat: {}", std::strerror(errno));
    }
    size_ = static_cast<std::size_t>(st.st_size);
    total_ = size_ + padding;
    void* base = mmap(nullptr, total_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED || (size_ > 0 && mmap(base, size_, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)) {
      ::close(fd);
      if (base != MAP_FAILED) munmap(base, total_);
      fail(ErrorCode::kRuntime, path.string(), "cannot map the file: {}", std::strerror(errno));
    }
    ::close(fd);
    madvise(base, size_, MADV_WILLNEED);
    data_ = static_cast<const char*>(base);
  }
  ~PaddedMapping() { munmap(const_cast<char*>(data_), total_); }
  PaddedMapping(const PaddedMapping&) = delete;
  PaddedMapping& operator=(const PaddedMapping&) = delete;
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0, total_ = 0;
};

std::unique_ptr<JsonDocument> JsonDocument::from_file(const std::filesystem::path& path) {
  PaddedMapping file(path, simdjson::SIMDJSON_PADDING);
  auto doc = std::unique_ptr<JsonDocument>(new JsonDocument(path.string()));
  doc->parse(file.data(), file.size());
  return doc;
}

JsonValue JsonDocument::root() const { return JsonValue(this, root_, ""); }

std::string_view json_type_name(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: return "an array";
    case simdjson::dom::element_type::OBJECT: return "an object";
    case simdjson::dom::element_type::STRING: return "a string";
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64:
    case simdjson::dom::element_type::DOUBLE: return "a number";
    case simdjson::dom::element_type::BOOL: return "a boolean";
    case simdjson::dom::element_type::NULL_VALUE: return "null";
  }
  return "a value";
}

std::optional<JsonValue> JsonValue::find(std::string_view key) const {
  if (!el_.is_object()) fail_expected("an object");
  simdjson::dom::element child;
  if (el_.get_object().at_key(key).get(child)) return std::nullopt;
  return JsonValue(doc_, child, child_path(path_, key));
}

JsonValue JsonValue::at(std::string_view key) const {
  auto v = find(key);
  if (!v) fail(ErrorCode::kParse, source(), "missing field '{}' at {}", key, path_.empty() ? "the top level" : path_);
  return *v;
}

std::string_view JsonValue::as_string() const {
  std::string_view s;
  if (el_.get_string().get(s)) fail_expected("a string");
  return s;
}

bool JsonValue::as_bool() const {
  bool b;
  if (el_.get_bool().get(b)) fail_expected("a boolean");
  return b;
}

double JsonValue::as_double() const {
  double d;
  if (el_.get_double().get(d)) fail_expected("a number");
  return d;
}

std::int64_t JsonValue::as_int() const {
  std::int64_t i;
  if (el_.get_int64().get(i)) fail_expected("an integer");
  return i;
}

std::vector<JsonValue> JsonValue::items() const {
  simdjson::dom::array arr;
  if (el_.get_array().get(arr)) fail_expected("an array");
  std::vector<JsonValue> out;
  std::size_t i = 0;
  for (auto e : arr) out.emplace_back(doc_, e, path_ + "[" + std::to_string(i++) + "]");
  return out;
}

std::string JsonValue::string_or(std::string_view key, std::string_view fallback) const {
  auto v = find(key);
  return v && !v->is_null() ? std::string(v->as_string()) : std::string(fallback);
}

std::optional<std::string> JsonValue::optional_string(std::string_view key) const {
  auto v = find(key);
  if (!v || v->is_null()) return std::nullopt;
  return std::string(v->as_string());
}

bool JsonValue::bool_or(std::string_view key, bool fallback) const {
  auto v = find(key);
  return v && !v->is_null() ? v->as_bool() : fallback;
}

std::int64_t JsonValue::int_or(std::string_view key, std::int64_t fallback) const {
  auto v = find(key);
  return v && !v->is_null() ? v->as_int() : fallback;
}

void JsonValue::fail_expected(std::string_view what) const {
  fail(ErrorCode::kParse, source(), "expected {} at {}, got {}", what, path_.empty() ? "the top level" : path_,
       json_type_name(el_));
}

void JsonValue::fail_unsupported(std::string_view kind, std::string_view type) const {
  fail(ErrorCode::kUnsupported, source(), "unsupported {} '{}' at {}", kind, type, path_);
}

void JsonValue::fail_invalid(std::string_view message) const {
  fail(ErrorCode::kParse, source(), "{} at {}", message, path_.empty() ? "the top level" : path_);
}

}  // namespace ogai::tokenizer
