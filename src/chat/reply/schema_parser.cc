#include "chat/reply/schema_parser.h"

#include "base/json_lenient.h"

#include <algorithm>
#include <map>
#include <optional>

#include "base/error.h"

namespace ogai::chat::reply {

struct ResponseSchema::Node {
  std::string type;
  std::optional<Json> constant;
  std::optional<Pattern> regex, iterator;
  std::string parser;  // "", "json", "gemma4-tool-call"
  std::vector<std::pair<std::string, std::shared_ptr<const Node>>> properties;
  std::shared_ptr<const Node> items;
};

namespace {

using Node = ResponseSchema::Node;

std::shared_ptr<const Node> load_node(const Json& s, const std::string& where) {
  if (!s.is_object()) fail(ErrorCode::kInvalidArgument, where, "expected a schema object");
  auto n = std::make_shared<Node>();
  n->type = s.value("type", std::string());
  if (s.contains("const")) n->constant = s["const"];
  for (const char* key : {"x-regex", "x-regex-iterator", "x-parser"})
    if (s.contains(key) && !s[key].is_string())
      fail(ErrorCode::kInvalidArgument, where + "." + key, "expected a string");
  if (s.contains("x-regex")) n->regex = Pattern::regex(s["x-regex"].get<std::string>(), where + ".x-regex");
  if (s.contains("x-regex-iterator"))
    n->iterator = Pattern::regex(s["x-regex-iterator"].get<std::string>(), where + ".x-regex-iterator");
  if (s.contains("x-parser")) {
    n->parser = s["x-parser"].get<std::string>();
    if (n->parser != "json" && n->parser != "gemma4-tool-call")
      fail(ErrorCode::kInvalidArgument, where + ".x-parser", "'{}' is not one of json, gemma4-tool-call", n->parser);
  }
  if (s.contains("properties") && s["properties"].is_object())
    for (const auto& [k, v] : s["properties"].items())
      n->properties.emplace_back(k, load_node(v, where + ".properties." + k));
  if (s.contains("items")) n->items = load_node(s["items"], where + ".items");
  return n;
}

JsonDialect gemma_dialect() {
  JsonDialect d;
  d.unquoted_keys = true;
  d.string_delims = {{"<|\"|>", "<|\"|>"}};
  return d;
}

// All matches of p in text (step-budgeted, each advancing at least one byte).
std::vector<PatternMatch> all_matches(const Pattern& p, std::string_view text) {
  std::vector<PatternMatch> out;
  for (std::size_t at = 0; at <= text.size();) {
    PatternMatch m = p.find(text, at, false);
    if (m.kind != PatternMatch::Kind::kFull) break;
    at = std::max(m.end, m.start + 1);
    out.push_back(std::move(m));
  }
  return out;
}

Json value_of(const Node& n, std::string_view text);

Json object_of(const Node& n, std::string_view text) {
  std::map<std::string, std::string> groups;
  if (n.regex) {
    PatternMatch m = n.regex->find(text, 0, false);
    if (m.kind != PatternMatch::Kind::kFull) return nullptr;
    groups = std::move(m.groups);
  }
  Json out = Json::object();
  for (const auto& [key, child] : n.properties) {
    if (child->constant) {
      out[key] = *child->constant;
    } else if (auto g = groups.find(key); g != groups.end()) {
      Json v = value_of(*child, g->second);
      if (!v.is_null() && !(v.is_string() && v.get<std::string>().empty()) && !(v.is_array() && v.empty()))
        out[key] = std::move(v);
    } else if (!n.regex && child->regex) {
      Json v = value_of(*child, text);
      if (!v.is_null()) out[key] = std::move(v);
    }
  }
  return out;
}

Json value_of(const Node& n, std::string_view text) {
  if (n.constant) return *n.constant;
  if (n.parser == "json" || n.parser == "gemma4-tool-call") {
    const CanonicalJson c = canonical_json(text, n.parser == "json" ? JsonDialect{} : gemma_dialect());
    Json j = c.ok ? parse_json_or_discarded<Json>(c.text) : Json();
    return c.ok && !j.is_discarded() ? j : Json(std::string(text));
  }
  if (n.type == "array" && n.items) {
    Json out = Json::array();
    if (!n.iterator) return out;
    for (const PatternMatch& m : all_matches(*n.iterator, text)) {
      // The iterator's first group (or the whole match) is one item's text.
      Json v = value_of(*n.items, m.first_group ? *m.first_group : std::string(text.substr(m.start, m.end - m.start)));
      if (!v.is_null()) out.push_back(std::move(v));
    }
    return out;
  }
  if (n.type == "object" || !n.properties.empty()) return object_of(n, text);
  if (n.type == "integer" || n.type == "number") {
    Json v = parse_json_or_discarded<Json>(text);
    return v.is_number() ? v : Json(std::string(text));
  }
  return std::string(text);
}

}  // namespace

namespace {

void collect_strings(const Json& j, std::vector<std::string>& out) {
  if (j.is_string()) {
    out.push_back(j.get<std::string>());
  } else if (j.is_structured()) {
    for (const auto& v : j) collect_strings(v, out);
  }
}

}  // namespace

std::shared_ptr<const ResponseSchema> ResponseSchema::load(const Json& schema, const std::string& where) {
  auto s = std::make_shared<ResponseSchema>();
  s->root_ = load_node(schema, where);
  collect_strings(schema, s->strings_);
  // The gemma4-tool-call parser reads strings between its own delimiters, which the schema's
  // strings do not spell: they are markers too.
  if (std::find(s->strings_.begin(), s->strings_.end(), "gemma4-tool-call") != s->strings_.end())
    for (const auto& [open, close] : gemma_dialect().string_delims) {
      s->strings_.push_back(open);
      s->strings_.push_back(close);
    }
  return s;
}

Json ResponseSchema::parse(std::string_view reply) const {
  Json m = object_of(*root_, reply);
  if (!m.is_object()) m = Json::object();
  if (!m.contains("role")) m["role"] = "assistant";
  const bool fitted = m.contains("content") || m.contains("thinking") || m.contains("tool_calls");
  if (!fitted && !reply.empty()) m["content"] = std::string(reply);
  return m;
}

}  // namespace ogai::chat::reply
