// Internal: typed reading of a Node tree with document paths. Every problem becomes a `P`
// diagnostic (unknown key in a closed struct, retired field, missing key, wrong type, value
// outside a vocabulary) and reading continues with a default, so one pass reports everything.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metadata/diagnostics.h"
#include "metadata/tree.h"

namespace ogai::metadata::detail {

std::string join_path(const std::string& base, std::string_view key);
std::string index_path(const std::string& base, std::size_t index);

// Why a retired field was removed, for the message.
struct Retired {
  std::string_view key;
  std::string_view reason;
};

class Reader {
 public:
  explicit Reader(Diagnostics& diags) : diags_(diags) {}
  void error(const std::string& path, std::string message) { diags_.add("P", path, std::move(message)); }

  std::optional<std::string> string(const Node* node, const std::string& path);
  std::optional<std::int64_t> integer(const Node* node, const std::string& path, std::int64_t min = INT64_MIN);
  std::optional<double> number(const Node* node, const std::string& path);
  std::optional<bool> boolean(const Node* node, const std::string& path);
  std::vector<std::string> strings(const Node* node, const std::string& path);
  // Index into `names`, or nullopt (with a diagnostic listing them).
  std::optional<std::size_t> choice(const Node* node, const std::string& path,
                                    std::initializer_list<std::string_view> names);
  nlohmann::json json(const Node* node);  // any node, as JSON
  bool expect(const Node* node, Node::Kind kind, const std::string& path);
  // Calls fn(name, child, child_path) for each entry of a mapping (a null node is an empty map).
  void entries(const Node* node, const std::string& path,
               const std::function<void(const std::string&, const Node&, const std::string&)>& fn);
  // Calls fn(index, child, child_path) for each item of a sequence (null: empty).
  void items(const Node* node, const std::string& path,
             const std::function<void(std::size_t, const Node&, const std::string&)>& fn);

 private:
  Diagnostics& diags_;
};

// The fields of one closed mapping. Ask for every key the struct knows (get/need/...); finish()
// then reports retired and unknown keys. A node that is not a mapping is reported once and reads
// as empty.
class Fields {
 public:
  Fields(Reader& reader, const Node* node, std::string path, std::initializer_list<Retired> retired = {});
  ~Fields() { finish(); }
  Fields(const Fields&) = delete;
  Fields& operator=(const Fields&) = delete;

  bool present() const { return map_ != nullptr; }
  const std::string& path() const { return path_; }
  std::string at(std::string_view key) const { return join_path(path_, key); }
  bool has(std::string_view key);
  const Node* get(std::string_view key);   // nullptr when absent or null
  const Node* need(std::string_view key);  // reports a missing key
  std::optional<std::string> string(std::string_view key, bool required = false);
  std::string string_or(std::string_view key, std::string fallback, bool required = false);
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min = INT64_MIN, bool required = false);
  std::optional<double> number(std::string_view key);
  bool boolean(std::string_view key, bool fallback);
  std::optional<std::size_t> choice(std::string_view key, std::initializer_list<std::string_view> names,
                                    bool required = false);
  // The value itself when it is one of `names`.
  std::optional<std::string> one_of(std::string_view key, std::initializer_list<std::string_view> names,
                                    bool required = false);
  std::vector<std::string> strings(std::string_view key);
  nlohmann::json json(std::string_view key);  // null when absent
  void finish();

 private:
  Reader& reader_;
  const Node* map_ = nullptr;
  std::string path_;
  std::vector<Retired> retired_;
  std::vector<std::string> known_;
  bool finished_ = false;
};

}  // namespace ogai::metadata::detail
