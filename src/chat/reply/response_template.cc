#include "chat/reply/response_template.h"

#include <set>

#include "base/error.h"

namespace ogai::chat::reply {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  fail(ErrorCode::kInvalidArgument, where, "{}", what);
}

void only_keys(const Json& j, const std::string& where, const std::set<std::string>& allowed) {
  if (!j.is_object()) bad(where, "expected an object");
  for (const auto& [key, value] : j.items())
    if (!allowed.contains(key)) bad(where + "." + key, "unknown key '" + key + "'");
}

bool boolean(const Json& j, const char* key, bool fallback, const std::string& where) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_boolean()) bad(where + "." + key, "expected true or false");
  return j[key].get<bool>();
}

std::vector<std::string> strings(const Json& j, const std::string& where) {
  std::vector<std::string> out;
  if (j.is_string()) out.push_back(j.get<std::string>());
  else if (j.is_array() && !j.empty())
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_string()) bad(where + "[" + std::to_string(i) + "]", "expected a string");
      out.push_back(j[i].get<std::string>());
    }
  else bad(where, "expected a string or a non-empty list of strings");
  for (const auto& s : out)
    if (s.empty()) bad(where, "a delimiter must not be empty");
  return out;
}

std::string regex_text(const Json& j, const std::string& where) {
  if (!j.is_string() || j.get<std::string>().empty()) bad(where, "expected a regular expression string");
  return j.get<std::string>();
}

// open/open_pattern (or close/close_pattern): at most one of them.
std::optional<Pattern> delimiter(const Json& f, const std::string& literal, const std::string& where) {
  const std::string pattern = literal + "_pattern";
  if (f.contains(literal) && f.contains(pattern)) bad(where + "." + pattern, "give '" + literal + "' or '" + pattern + "', not both");
  if (f.contains(literal)) return Pattern::literals(strings(f[literal], where + "." + literal), where + "." + literal);
  if (f.contains(pattern)) return Pattern::regex(regex_text(f[pattern], where + "." + pattern), where + "." + pattern);
  return std::nullopt;
}

ContentKind content_kind(const Json& j, const std::string& where) {
  if (!j.is_string()) bad(where, "expected one of text, json, xml-inline, int, float, bool");
  const std::string s = j.get<std::string>();
  if (s == "text") return ContentKind::kText;
  if (s == "json") return ContentKind::kJson;
  if (s == "xml-inline") return ContentKind::kXmlInline;
  if (s == "int") return ContentKind::kInt;
  if (s == "float") return ContentKind::kFloat;
  if (s == "bool") return ContentKind::kBool;
  bad(where, "'" + s + "' is not one of text, json, xml-inline, int, float, bool");
}

JsonDialect dialect(const Json& args, const std::string& where) {
  JsonDialect d;
  d.unquoted_keys = boolean(args, "unquoted_keys", false, where);
  if (args.contains("string_delims")) {
    const Json& list = args["string_delims"];
    const std::string at = where + ".string_delims";
    if (!list.is_array()) bad(at, "expected a list of [open, close] pairs");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Json& p = list[i];
      if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string() ||
          p[0].get<std::string>().empty() || p[1].get<std::string>().empty())
        bad(at + "[" + std::to_string(i) + "]", "expected a pair of non-empty strings [open, close]");
      d.string_delims.emplace_back(p[0].get<std::string>(), p[1].get<std::string>());
    }
  }
  return d;
}

ValueParser value_parser(ContentKind kind, const Json& args, const std::string& where) {
  ValueParser p;
  p.kind = kind;
  if (kind == ContentKind::kText) {
    only_keys(args, where, {"strip"});
    p.strip = boolean(args, "strip", true, where);
  } else if (kind == ContentKind::kJson) {
    only_keys(args, where, {"unquoted_keys", "string_delims", "allow_non_json"});
    p.dialect = dialect(args, where);
    p.allow_non_json = boolean(args, "allow_non_json", false, where);
  } else if (kind != ContentKind::kXmlInline) {
    only_keys(args, where, {});
  }
  return p;
}

// Placeholder names in a transform ("{x}" strings), with their paths.
void placeholders(const Json& t, const std::string& where, std::vector<std::pair<std::string, std::string>>& out) {
  if (t.is_string()) {
    const std::string s = t.get<std::string>();
    if (s.size() > 2 && s.front() == '{' && s.back() == '}') out.emplace_back(s.substr(1, s.size() - 2), where);
  } else if (t.is_object()) {
    for (const auto& [k, v] : t.items()) placeholders(v, where + "." + k, out);
  } else if (t.is_array()) {
    for (std::size_t i = 0; i < t.size(); ++i) placeholders(t[i], where + "[" + std::to_string(i) + "]", out);
  }
}

JsonPath split_dots(const std::string& s) {
  JsonPath p;
  std::size_t from = 0;
  for (std::size_t at = s.find('.'); ; at = s.find('.', from)) {
    p.push_back(s.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) break;
    from = at + 1;
  }
  return p;
}

// Where output path `want` comes from in transform `t`.
CallSource resolve(const std::optional<Json>& t, const JsonPath& want, const Field& f,
                   const std::set<std::string>& groups) {
  CallSource s;
  if (!t) {
    s.kind = CallSource::Kind::kContent;
    s.path = want;
    return s;
  }
  const Json* node = &*t;
  std::size_t i = 0;
  while (true) {
    if (node->is_string()) {
      const std::string text = node->get<std::string>();
      if (text.size() > 2 && text.front() == '{' && text.back() == '}') {
        JsonPath var = split_dots(text.substr(1, text.size() - 2));
        if (var[0] == "content") {
          var.erase(var.begin());
        } else if (groups.contains(var[0]) && var.size() == 1 && i == want.size()) {
          s.kind = CallSource::Kind::kCapture;
          s.capture = var[0];
          return s;
        } else if (!f.transform_each) {
          return s;
        }
        s.kind = CallSource::Kind::kContent;
        s.path = var;
        s.path.insert(s.path.end(), want.begin() + i, want.end());
        return s;
      }
      if (i == want.size()) {
        s.kind = CallSource::Kind::kLiteral;
        s.literal = text;
      }
      return s;
    }
    if (i == want.size() || !node->is_object() || !node->contains(want[i])) return s;
    node = &(*node)[want[i]];
    ++i;
  }
}

std::set<std::string> group_names(const Json& f) {
  // Named groups, read from the pattern text ((?P<name> and (?<name>).
  std::set<std::string> names;
  for (const char* key : {"open_pattern", "close_pattern"}) {
    if (!f.contains(key) || !f[key].is_string()) continue;
    const std::string s = f[key].get<std::string>();
    for (std::size_t at = s.find("(?"); at != std::string::npos; at = s.find("(?", at + 2)) {
      std::size_t from = at + 2;
      if (from < s.size() && s[from] == 'P') ++from;
      if (from >= s.size() || s[from] != '<' || (from + 1 < s.size() && (s[from + 1] == '=' || s[from + 1] == '!')))
        continue;
      const std::size_t close = s.find('>', from);
      if (close != std::string::npos) names.insert(s.substr(from + 1, close - from - 1));
    }
  }
  return names;
}

Field load_field(const std::string& name, const Json& f, const std::string& where) {
  only_keys(f, where, {"open", "open_pattern", "close", "close_pattern", "content", "content_args", "repeats", "join",
                       "optional", "transform", "transform_each"});
  Field field;
  field.name = name;
  field.open = delimiter(f, "open", where);
  field.close = delimiter(f, "close", where);
  if (f.contains("close")) field.close_text = strings(f["close"], where + ".close")[0];
  const ContentKind kind = f.contains("content") ? content_kind(f["content"], where + ".content") : ContentKind::kText;
  const Json args = f.value("content_args", Json::object());
  const std::string args_where = where + ".content_args";
  if (kind == ContentKind::kXmlInline) {
    only_keys(args, args_where, {"tag_pattern", "value_parser", "merge_duplicates", "strip"});
    if (!args.contains("tag_pattern")) bad(args_where + ".tag_pattern", "xml-inline needs a tag_pattern");
    field.tag_pattern = Pattern::regex(regex_text(args["tag_pattern"], args_where + ".tag_pattern"),
                                       args_where + ".tag_pattern");
    const std::string tp = args["tag_pattern"].get<std::string>();
    if (tp.find("<key>") == std::string::npos || tp.find("<value>") == std::string::npos)
      bad(args_where + ".tag_pattern", "the tag_pattern needs the named groups 'key' and 'value'");
    if (args.contains("value_parser")) {
      const Json& vp = args["value_parser"];
      const std::string vw = args_where + ".value_parser";
      only_keys(vp, vw, {"name", "args"});
      if (!vp.contains("name")) bad(vw + ".name", "a value_parser needs a name");
      const ContentKind vk = content_kind(vp["name"], vw + ".name");
      if (vk == ContentKind::kXmlInline) bad(vw + ".name", "a value_parser cannot be xml-inline");
      field.value_parser = value_parser(vk, vp.value("args", Json::object()), vw + ".args");
    }
    field.parser.kind = kind;
  } else {
    field.parser = value_parser(kind, args, args_where);
  }
  field.repeats = boolean(f, "repeats", false, where);
  field.optional = boolean(f, "optional", true, where);
  field.transform_each = boolean(f, "transform_each", false, where);
  if (f.contains("join")) {
    if (!f["join"].is_string()) bad(where + ".join", "expected a string");
    if (!field.repeats) bad(where + ".join", "join applies to a field that repeats");
    field.join = f["join"].get<std::string>();
  }
  if (f.contains("transform")) {
    field.transform = f["transform"];
    std::vector<std::pair<std::string, std::string>> names;
    placeholders(f["transform"], where + ".transform", names);
    const std::set<std::string> groups = group_names(f);
    for (const auto& [var, at] : names) {
      const std::string head = split_dots(var)[0];
      if (head != "content" && !groups.contains(head) && !field.transform_each)
        bad(at, "'{" + var + "}' names neither content nor a named group of open_pattern/close_pattern");
    }
  } else if (field.transform_each) {
    bad(where + ".transform_each", "transform_each needs a transform");
  }
  if (name == "tool_calls") {
    const std::set<std::string> groups = group_names(f);
    field.call_name = resolve(field.transform, {"function", "name"}, field, groups);
    field.call_arguments = resolve(field.transform, {"function", "arguments"}, field, groups);
    if (field.call_name.kind == CallSource::Kind::kNone)
      bad(where + ".transform", "a tool call's function.name must come from the content or a named group");
    if (field.call_arguments.kind != CallSource::Kind::kContent)
      bad(where + ".transform", "a tool call's function.arguments must come from the content");
    if (kind == ContentKind::kXmlInline && !field.call_arguments.path.empty())
      bad(where + ".transform", "xml-inline arguments are the whole content ('{content}')");
    if (kind != ContentKind::kJson && kind != ContentKind::kXmlInline)
      bad(where + ".content", "tool calls are read from json or xml-inline content");
  }
  return field;
}

}  // namespace

std::shared_ptr<const ResponseTemplate> ResponseTemplate::load(const Json& j, const std::string& where,
                                                               std::string origin) {
  only_keys(j, where, {"defaults", "start_anchor", "start_anchor_pattern", "fields"});
  auto t = std::make_shared<ResponseTemplate>();
  t->origin = std::move(origin);
  if (j.contains("defaults")) {
    if (!j["defaults"].is_object()) bad(where + ".defaults", "expected an object");
    t->defaults = j["defaults"];
  }
  if (j.contains("start_anchor") && j.contains("start_anchor_pattern"))
    bad(where + ".start_anchor_pattern", "give 'start_anchor' or 'start_anchor_pattern', not both");
  if (j.contains("start_anchor"))
    t->start_anchor = Pattern::literals(strings(j["start_anchor"], where + ".start_anchor"), where + ".start_anchor");
  if (j.contains("start_anchor_pattern"))
    t->start_anchor = Pattern::regex(regex_text(j["start_anchor_pattern"], where + ".start_anchor_pattern"),
                                     where + ".start_anchor_pattern");
  if (!j.contains("fields") || !j["fields"].is_object() || j["fields"].empty())
    bad(where + ".fields", "expected an object of one or more fields");
  for (const auto& [name, f] : j["fields"].items()) {
    const std::string at = where + ".fields." + name;
    Field field = load_field(name, f, at);
    if (!field.open) {
      if (t->implicit >= 0) bad(at, "only one field may lack open/open_pattern (the implicit field)");
      t->implicit = static_cast<int>(t->fields.size());
    }
    t->fields.push_back(std::move(field));
  }
  return t;
}

Json apply_transform(const Json& transform, const Json& vars) {
  if (transform.is_string()) {
    const std::string s = transform.get<std::string>();
    if (s.size() > 2 && s.front() == '{' && s.back() == '}') {
      const Json* v = &vars;
      for (const std::string& part : split_dots(s.substr(1, s.size() - 2))) {
        if (!v->is_object() || !v->contains(part)) return nullptr;
        v = &(*v)[part];
      }
      return *v;
    }
    return transform;
  }
  if (transform.is_object()) {
    Json out = Json::object();
    for (const auto& [k, v] : transform.items()) out[k] = apply_transform(v, vars);
    return out;
  }
  if (transform.is_array()) {
    Json out = Json::array();
    for (const Json& v : transform) out.push_back(apply_transform(v, vars));
    return out;
  }
  return transform;
}

}  // namespace ogai::chat::reply
