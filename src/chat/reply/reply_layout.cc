#include "chat/reply/reply_layout.h"

#include "base/error.h"
#include "base/file.h"
#include "base/json_lenient.h"
#include "chat/reply/builtin_templates.h"

namespace ogai::chat::reply {
namespace fs = std::filesystem;

std::optional<ReplyLayout> load_reply_layout(const fs::path& source) {
  fs::path file = source;
  if (fs::is_directory(source)) {
    file = source / "tokenizer_config.json";
    if (!fs::exists(file)) return std::nullopt;
  }
  Json j = parse_json_or_discarded<Json>(read_file(file));
  if (j.is_discarded() || !j.is_object())
    fail(ErrorCode::kInvalidArgument, file.string(), "expected a JSON object");
  ReplyLayout layout;
  if (j.contains("response_template")) {
    layout.origin = file.string() + ":response_template";
    layout.tmpl = ResponseTemplate::load(j["response_template"], "response_template", layout.origin);
    return layout;
  }
  if (j.contains("response_schema")) {
    layout.origin = file.string() + ":response_schema";
    layout.schema = ResponseSchema::load(j["response_schema"], "response_schema");
    return layout;
  }
  if (j.contains("fields")) {  // the template itself
    layout.origin = file.string();
    layout.tmpl = ResponseTemplate::load(j, "response_template", layout.origin);
    return layout;
  }
  return std::nullopt;
}

std::vector<std::string> reply_marker_sources(const ReplyLayout& layout) {
  if (layout.schema) return layout.schema->strings();
  std::vector<std::string> out;
  if (!layout.tmpl) return out;
  auto add = [&](const std::optional<Pattern>& p) {
    if (p) out.push_back(p->source());
  };
  add(layout.tmpl->start_anchor);
  for (const Field& f : layout.tmpl->fields) {
    add(f.open);
    add(f.close);
    add(f.tag_pattern);
    for (const auto& [open, close] : f.parser.dialect.string_delims) {
      out.push_back(open);
      out.push_back(close);
    }
  }
  return out;
}

ReplyLayout builtin_layout(std::string_view source, const std::string& family) {
  ReplyLayout layout;
  const std::string name = family.empty() ? detect_template_family(source) : family;
  layout.tmpl = builtin_template(name, source.find("<think>") != std::string_view::npos);
  layout.origin = "builtin:" + name;
  return layout;
}

}  // namespace ogai::chat::reply
