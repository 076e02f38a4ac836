// ReplyLayout: how replies of one model split into content, reasoning and tool calls, from the
// first source found (docs/tool_calls.md, "Where the template comes from"): a response template
// file given by the user (--response-template), the package's tokenizer_config.json
// `response_template`, its `response_schema` (the x-regex form), else the built-in detected from
// the chat template's source. Immutable; shared by the prompts made from it.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chat/reply/response_template.h"
#include "chat/reply/schema_parser.h"

namespace ogai {

struct ReplyLayout {
  std::shared_ptr<const chat::reply::ResponseTemplate> tmpl;  // set, or schema
  std::shared_ptr<const chat::reply::ResponseSchema> schema;
  std::string origin;  // where it came from: a path and key, or "builtin:NAME"
};

}  // namespace ogai

namespace ogai::chat::reply {

// A response template or schema from `path`: a package directory (its tokenizer_config.json), a
// tokenizer_config.json, or a JSON file holding {"response_template": {...}} (or the template
// itself). nullopt when the source holds neither key. Throws ogai::Error: kNotFound for a missing
// file, kInvalidArgument for malformed JSON or a malformed template (naming the key's path).
std::optional<ReplyLayout> load_reply_layout(const std::filesystem::path& path);

// The texts in which `layout` names its markers: the patterns' sources (literals escaped as
// regexes), the JSON dialect's string delimiters, a response schema's strings. A special token
// whose text occurs in one of them (as written or regex-escaped) is a marker the reply parser
// reads, so it must stay in the generated text (generate/kept_specials.h).
std::vector<std::string> reply_marker_sources(const ReplyLayout& layout);

// The built-in for a chat template source (or the family named `family`, when not empty).
ReplyLayout builtin_layout(std::string_view chat_template_source, const std::string& family = "");

}  // namespace ogai::chat::reply
