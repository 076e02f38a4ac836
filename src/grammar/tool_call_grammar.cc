#include "grammar/tool_call_grammar.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "grammar/json_rules.h"
#include "grammar/json_schema.h"

namespace ogai::grammar {
namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kWhere = "response_format.tool_calls";

std::string text_of(const Json& spec, const char* key) {
  auto it = spec.find(key);
  if (it == spec.end()) return {};
  if (!it->is_string()) fail(ErrorCode::kInvalidArgument, kWhere, "'{}' must be a string", key);
  return it->get<std::string>();
}

// "arguments_dialect": {"unquoted_keys": bool, "string_delims": [open, close], "sorted_keys": bool}.
JsonDialect arguments_dialect(const Json& spec) {
  JsonDialect d;
  auto it = spec.find("arguments_dialect");
  if (it == spec.end()) return d;
  const std::string where = std::string(kWhere) + ".arguments_dialect";
  if (!it->is_object()) fail(ErrorCode::kInvalidArgument, where, "expected an object");
  for (auto k = it->begin(); k != it->end(); ++k) {
    const std::string& key = k.key();
    if (key == "unquoted_keys" || key == "sorted_keys") {
      if (!k->is_boolean()) fail(ErrorCode::kInvalidArgument, where + "." + key, "expected a boolean");
      (key == "unquoted_keys" ? d.bare_keys : d.sorted_keys) = k->get<bool>();
    } else if (key == "string_delims") {
      if (!k->is_array() || k->size() != 2 || !(*k)[0].is_string() || !(*k)[1].is_string() ||
          (*k)[0].get<std::string>().empty() || (*k)[1].get<std::string>().empty())
        fail(ErrorCode::kInvalidArgument, where + ".string_delims", "expected [open, close], two non-empty strings");
      d.string_open = (*k)[0].get<std::string>();
      d.string_close = (*k)[1].get<std::string>();
    } else {
      fail(ErrorCode::kInvalidArgument, where + "." + key, "unknown key");
    }
  }
  return d;
}

// call_open {"name": "<name>", "<key>": ARGS} call_close
Sequence one_call(GrammarBuilder& b, const Json& spec, const Json& function) {
  if (!function.is_object() || !function.contains("name") || !function["name"].is_string())
    fail(ErrorCode::kInvalidArgument, kWhere, "every function needs a string 'name'");
  const std::string where = function.value("where", std::string(kWhere) + ".parameters");
  // Without `parameters` the function takes none (OpenAI's rule): its arguments are `{}`.
  const Json none = {{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}};
  const Json params = function.value("parameters", none);
  JsonSchemaOptions options;
  options.dialect = arguments_dialect(spec);
  // Blanks as models write a call's JSON: nothing, one space, or a newline and an indent. A
  // dialect is written as its template renders it: compact.
  options.whitespace = options.dialect.is_json() ? kIndentedWhitespace : 0;
  Element args = embed_grammar(b, compile_json_schema(params.dump(), where, options));
  const std::string call_template = text_of(spec, "call_template");
  if (!call_template.empty()) {  // the model's own syntax: text around NAME and ARGS
    const std::size_t n = call_template.find("{name}"), a = call_template.find("{arguments}");
    if (n == std::string::npos || a == std::string::npos || a < n)
      fail(ErrorCode::kInvalidArgument, kWhere, "'call_template' needs {{name}} before {{arguments}}");
    Sequence s = b.literal(call_template.substr(0, n) + function["name"].get<std::string>() +
                           call_template.substr(n + 6, a - n - 6));
    s.push_back(args);
    GrammarBuilder::append(s, b.literal(call_template.substr(a + 11)));
    return s;
  }
  const std::string name = Json(function["name"].get<std::string>()).dump();
  Sequence s = b.literal(text_of(spec, "call_open") + "{\"name\": " + name + ", " +
                         Json(text_of(spec, "arguments_key")).dump() + ": ");
  s.push_back(args);
  GrammarBuilder::append(s, b.literal("}" + text_of(spec, "call_close")));
  return s;
}

}  // namespace

Element embed_grammar(GrammarBuilder& b, const Grammar& g) {
  std::vector<std::uint32_t> ids;
  ids.reserve(g.rules.size());
  for (std::size_t r = 0; r < g.rules.size(); ++r) ids.push_back(b.add_rule(g.names[r]));
  for (std::size_t r = 0; r < g.rules.size(); ++r)
    for (const Sequence& alt : g.rules[r]) {
      Sequence copy;
      copy.reserve(alt.size());
      for (const Element& e : alt)
        copy.push_back(e.kind == Element::Kind::kBytes ? b.bytes(g.byte_sets[e.index])
                                                       : GrammarBuilder::ref(ids[e.index]));
      b.add_alternative(ids[r], std::move(copy));
    }
  return GrammarBuilder::ref(ids[g.root]);
}

Grammar compile_tool_calls(std::string_view text) {
  Json spec = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (spec.is_discarded() || !spec.is_object())
    fail(ErrorCode::kInvalidArgument, kWhere, "the tool-call spec is not a JSON object");
  const Json& functions = spec.contains("functions") ? spec["functions"] : Json();
  if (!functions.is_array() || functions.empty())
    fail(ErrorCode::kInvalidArgument, kWhere, "'functions' must be a non-empty array");
  GrammarBuilder b(kWhere);
  std::vector<Sequence> alternatives;
  for (const Json& f : functions) alternatives.push_back(one_call(b, spec, f));
  const Element call = GrammarBuilder::ref(b.rule("call", std::move(alternatives)));
  Sequence root = b.literal(text_of(spec, "begin"));
  root.push_back(call);
  if (spec.value("parallel", false)) {
    Sequence more = b.literal(text_of(spec, "separator"));
    more.push_back(call);
    const int max_calls = spec.value("max_calls", 0);  // 0: unbounded
    GrammarBuilder::append(root, b.repeat(more, 0, max_calls > 0 ? max_calls - 1 : -1, "more_calls"));
  }
  GrammarBuilder::append(root, b.literal(text_of(spec, "end")));
  return b.finish(b.rule("root", {root}));
}

}  // namespace ogai::grammar
