#include "metadata/reader.h"

#include <algorithm>

#include <fmt/format.h>

namespace ogai::metadata::detail {

std::string join_path(const std::string& base, std::string_view key) {
  return base.empty() ? std::string(key) : base + "." + std::string(key);
}

std::string index_path(const std::string& base, std::size_t index) {
  return base + "[" + std::to_string(index) + "]";
}

namespace {

std::string got(const Node& node) {
  return fmt::format("{} {}", node_kind_name(node.kind), node_preview(node));
}

}  // namespace

bool Reader::expect(const Node* node, Node::Kind kind, const std::string& path) {
  if (node && node->kind == kind) return true;
  if (node) error(path, fmt::format("expected a {}, got {}", node_kind_name(kind), got(*node)));
  else error(path, fmt::format("expected a {}", node_kind_name(kind)));
  return false;
}

std::optional<std::string> Reader::string(const Node* node, const std::string& path) {
  if (!expect(node, Node::Kind::kString, path)) return std::nullopt;
  return node->text;
}

std::optional<std::int64_t> Reader::integer(const Node* node, const std::string& path, std::int64_t min) {
  if (!expect(node, Node::Kind::kInt, path)) return std::nullopt;
  if (node->integer < min) {
    error(path, fmt::format("{} is below the minimum {}", node->integer, min));
    return std::nullopt;
  }
  return node->integer;
}

std::optional<double> Reader::number(const Node* node, const std::string& path) {
  if (node && (node->kind == Node::Kind::kInt || node->kind == Node::Kind::kFloat)) return node->number;
  expect(node, Node::Kind::kFloat, path);
  return std::nullopt;
}

std::optional<bool> Reader::boolean(const Node* node, const std::string& path) {
  if (!expect(node, Node::Kind::kBool, path)) return std::nullopt;
  return node->boolean;
}

std::vector<std::string> Reader::strings(const Node* node, const std::string& path) {
  std::vector<std::string> out;
  items(node, path, [&](std::size_t, const Node& item, const std::string& item_path) {
    if (auto s = string(&item, item_path)) out.push_back(*s);
  });
  return out;
}

std::optional<std::size_t> Reader::choice(const Node* node, const std::string& path,
                                          std::initializer_list<std::string_view> names) {
  auto text = string(node, path);
  if (!text) return std::nullopt;
  auto it = std::find(names.begin(), names.end(), *text);
  if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
  error(path, fmt::format("'{}' is not one of: {}", *text, fmt::join(names, ", ")));
  return std::nullopt;
}

nlohmann::json Reader::json(const Node* node) {
  if (!node) return nullptr;
  switch (node->kind) {
    case Node::Kind::kNull: return nullptr;
    case Node::Kind::kBool: return node->boolean;
    case Node::Kind::kInt: return node->integer;
    case Node::Kind::kFloat: return node->number;
    case Node::Kind::kString: return node->text;
    case Node::Kind::kSeq: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node->items) out.push_back(json(item.get()));
      return out;
    }
    case Node::Kind::kMap: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& [key, value] : node->entries) out[key] = json(value.get());
      return out;
    }
  }
  return nullptr;
}

void Reader::entries(const Node* node, const std::string& path,
                     const std::function<void(const std::string&, const Node&, const std::string&)>& fn) {
  if (!node || node->kind == Node::Kind::kNull) return;
  if (!expect(node, Node::Kind::kMap, path)) return;
  for (const auto& [key, value] : node->entries) fn(key, *value, join_path(path, key));
}

void Reader::items(const Node* node, const std::string& path,
                   const std::function<void(std::size_t, const Node&, const std::string&)>& fn) {
  if (!node || node->kind == Node::Kind::kNull) return;
  if (!expect(node, Node::Kind::kSeq, path)) return;
  for (std::size_t i = 0; i < node->items.size(); ++i) fn(i, *node->items[i], index_path(path, i));
}

// ---- Fields --------------------------------------------------------------------------------

Fields::Fields(Reader& reader, const Node* node, std::string path, std::initializer_list<Retired> retired)
    : reader_(reader), path_(std::move(path)), retired_(retired) {
  if (node && node->kind == Node::Kind::kMap) map_ = node;
  else if (node && node->kind != Node::Kind::kNull) reader_.expect(node, Node::Kind::kMap, path_);
}

bool Fields::has(std::string_view key) {
  known_.emplace_back(key);
  return map_ && map_->find(key) != nullptr;
}

const Node* Fields::get(std::string_view key) {
  known_.emplace_back(key);
  if (!map_) return nullptr;
  const Node* node = map_->find(key);
  return node && node->kind != Node::Kind::kNull ? node : nullptr;
}

const Node* Fields::need(std::string_view key) {
  const Node* node = get(key);
  if (!node) reader_.error(at(key), "required key is missing");
  return node;
}

std::optional<std::string> Fields::string(std::string_view key, bool required) {
  const Node* node = required ? need(key) : get(key);
  return node ? reader_.string(node, at(key)) : std::nullopt;
}

std::string Fields::string_or(std::string_view key, std::string fallback, bool required) {
  return string(key, required).value_or(std::move(fallback));
}

std::optional<std::int64_t> Fields::integer(std::string_view key, std::int64_t min, bool required) {
  const Node* node = required ? need(key) : get(key);
  return node ? reader_.integer(node, at(key), min) : std::nullopt;
}

std::optional<double> Fields::number(std::string_view key) {
  const Node* node = get(key);
  return node ? reader_.number(node, at(key)) : std::nullopt;
}

bool Fields::boolean(std::string_view key, bool fallback) {
  const Node* node = get(key);
  return node ? reader_.boolean(node, at(key)).value_or(fallback) : fallback;
}

std::optional<std::size_t> Fields::choice(std::string_view key, std::initializer_list<std::string_view> names,
                                          bool required) {
  const Node* node = required ? need(key) : get(key);
  return node ? reader_.choice(node, at(key), names) : std::nullopt;
}

std::optional<std::string> Fields::one_of(std::string_view key, std::initializer_list<std::string_view> names,
                                          bool required) {
  auto index = choice(key, names, required);
  if (!index) return std::nullopt;
  return std::string(*(names.begin() + *index));
}

std::vector<std::string> Fields::strings(std::string_view key) { return reader_.strings(get(key), at(key)); }

nlohmann::json Fields::json(std::string_view key) { return reader_.json(get(key)); }

void Fields::finish() {
  if (finished_ || !map_) return;
  finished_ = true;
  for (const auto& entry : map_->entries) {
    const std::string& key = entry.first;
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    auto retired = std::find_if(retired_.begin(), retired_.end(), [&](const Retired& r) { return r.key == key; });
    if (retired != retired_.end()) {
      reader_.error(at(key), fmt::format("retired field '{}' is not part of v1: {}", key, retired->reason));
      continue;
    }
    std::vector<std::string> expected = known_;
    std::sort(expected.begin(), expected.end());
    expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
    reader_.error(at(key), fmt::format("unknown key '{}'; expected one of: {}", key, fmt::join(expected, ", ")));
  }
}

}  // namespace ogai::metadata::detail
