// ChatTemplate: a package's chat template(s) plus the special tokens templates read, turning a
// chat request (messages, tools, documents, add_generation_prompt, extra variables) into the
// prompt text, as Hugging Face's apply_chat_template does.
//
// Sources: a `chat_template.jinja` (or any template file); a `tokenizer_config.json` or
// `chat_template.json` whose `chat_template` is a string or a list of {name, template}; or a
// package directory (chat_template.jinja, else chat_template.json, else tokenizer_config.json;
// special tokens always from tokenizer_config.json when present; extra named templates from
// additional_chat_templates/<name>.jinja).
//
// Thread safety: render() is const and safe to call from many threads at once. set_special_token()
// is for set-up only and must not run concurrently with render().
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "chat/template.h"

namespace ogai::chat {

struct ChatRequest {
  // OpenAI/HF messages: {role, content (string, null or a list of parts), tool_calls,
  // tool_call_id, name, reasoning_content, ...}, passed to the template as they are.
  Json messages = Json::array();
  Json tools;      // null: no tools (templates see `tools` as none); else a list of tool definitions
  Json documents;  // null or a list of documents
  bool add_generation_prompt = false;
  Json variables = Json::object();  // extra template variables (e.g. enable_thinking); override special tokens
  std::string template_name;        // empty: "tool_use" when tools are given and present, else "default"
};

class ChatTemplate {
 public:
  // Throws ogai::Error: kNotFound (no such file, or no template in it), kParse (bad JSON or
  // template syntax).
  static ChatTemplate load(const std::filesystem::path& source_or_package_dir);
  static ChatTemplate from_string(std::string_view source, std::string origin);
  // `file` (a template or a JSON document holding one) in place of the package's template, with
  // the special tokens of `package_dir`'s tokenizer_config.json when it has one.
  static ChatTemplate load_override(const std::filesystem::path& file, const std::filesystem::path& package_dir);
  // A tokenizer_config.json / chat_template.json document; `origin` names it in errors.
  static ChatTemplate from_config(const Json& config, const std::string& origin);

  // Renders the request. Throws ogai::Error kInvalidArgument for template errors (raise_exception,
  // a type error, a limit) and for an unknown template_name.
  std::string render(const ChatRequest& request, const RenderOptions& options = {}) const;

  // The template render() would use for this request.
  const Template& select(const ChatRequest& request) const;

  // Special tokens passed to templates (bos_token, eos_token, unk_token, sep_token, pad_token,
  // cls_token, mask_token as strings; additional_special_tokens as a list).
  const Json& special_tokens() const { return special_tokens_; }
  void set_special_token(const std::string& name, Json value);
  void set_special_tokens_from_config(const Json& tokenizer_config);

  std::vector<std::string> names() const;  // "default", "tool_use", ...
  const std::string& origin() const { return origin_; }

 private:
  std::map<std::string, Template> templates_;
  Json special_tokens_ = Json::object();
  std::string origin_;
};

}  // namespace ogai::chat
