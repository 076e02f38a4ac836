#include "chat/chat_template.h"

#include <fmt/format.h>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"

namespace ogai::chat {
namespace fs = std::filesystem;
namespace {

constexpr const char* kTokenNames[] = {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"};

// A token in tokenizer_config.json: a string, or an AddedToken object with "content".
std::string token_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return {};
}

Json read_json(const fs::path& path) { return parse_json_bounded<Json>(read_file(path), path.string()); }

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void add_named_templates(std::map<std::string, Template>& templates, const fs::path& dir) {
  std::error_code ec;
  fs::path extra = dir / "additional_chat_templates";
  if (!fs::is_directory(extra, ec)) return;
  for (const auto& entry : fs::directory_iterator(extra)) {
    if (entry.path().extension() != ".jinja") continue;
    std::string name = entry.path().stem().string();
    templates.insert_or_assign(name, Template::parse(read_file(entry.path()), entry.path().string()));
  }
}

}  // namespace

ChatTemplate ChatTemplate::from_string(std::string_view source, std::string origin) {
  ChatTemplate t;
  t.origin_ = origin;
  t.templates_.emplace("default", Template::parse(source, std::move(origin)));
  return t;
}

ChatTemplate ChatTemplate::from_config(const Json& config, const std::string& origin) {
  if (!config.is_object() || !config.contains("chat_template"))
    fail(ErrorCode::kNotFound, origin, "no \"chat_template\" in this document");
  ChatTemplate t;
  t.origin_ = origin;
  const Json& ct = config["chat_template"];
  if (ct.is_string()) {
    t.templates_.emplace("default", Template::parse(ct.get<std::string>(), origin + ":chat_template"));
  } else if (ct.is_array()) {
    for (std::size_t i = 0; i < ct.size(); ++i) {
      const Json& item = ct[i];
      if (!item.is_object() || !item.contains("name") || !item["name"].is_string() || !item.contains("template") ||
          !item["template"].is_string())
        fail(ErrorCode::kParse, fmt::format("{}:chat_template[{}]", origin, i), "expected {{\"name\": string, \"template\": string}}");
      std::string name = item["name"].get<std::string>();
      t.templates_.insert_or_assign(name, Template::parse(item["template"].get<std::string>(),
                                                          fmt::format("{}:chat_template[{}]", origin, name)));
    }
  } else {
    fail(ErrorCode::kParse, origin + ":chat_template", "expected a string or a list of {{name, template}}, got {}", ct.type_name());
  }
  t.set_special_tokens_from_config(config);
  return t;
}

ChatTemplate ChatTemplate::load_override(const fs::path& file, const fs::path& package_dir) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) fail(ErrorCode::kInvalidArgument, file.string(), "expected a chat template file");
  ChatTemplate t = load(file);
  const fs::path config_path = package_dir / "tokenizer_config.json";
  if (fs::exists(config_path, ec)) t.set_special_tokens_from_config(read_json(config_path));
  return t;
}

ChatTemplate ChatTemplate::load(const fs::path& source) {
  std::error_code ec;
  if (!fs::exists(source, ec)) fail(ErrorCode::kNotFound, source.string(), "no such file or directory");
  if (!fs::is_directory(source, ec)) {
    if (source.extension() == ".json") return from_config(read_json(source), source.string());
    return from_string(read_file(source), source.string());
  }
  fs::path jinja = source / "chat_template.jinja", json = source / "chat_template.json";
  fs::path config_path = source / "tokenizer_config.json";
  Json config = fs::exists(config_path, ec) ? read_json(config_path) : Json::object();
  ChatTemplate t;
  if (fs::exists(jinja, ec)) t = from_string(read_file(jinja), jinja.string());
  else if (fs::exists(json, ec)) t = from_config(read_json(json), json.string());
  else if (config.contains("chat_template")) t = from_config(config, config_path.string());
  else fail(ErrorCode::kNotFound, source.string(), "no chat template: looked for chat_template.jinja, chat_template.json and "
                                                   "\"chat_template\" in tokenizer_config.json");
  t.set_special_tokens_from_config(config);
  add_named_templates(t.templates_, source);
  return t;
}

void ChatTemplate::set_special_tokens_from_config(const Json& config) {
  if (!config.is_object()) return;
  for (const char* name : kTokenNames) {
    if (!config.contains(name)) continue;
    std::string text = token_text(config[name]);
    if (!text.empty()) special_tokens_[name] = text;
  }
  if (config.contains("additional_special_tokens") && config["additional_special_tokens"].is_array()) {
    Json list = Json::array();
    for (const Json& v : config["additional_special_tokens"])
      if (std::string text = token_text(v); !text.empty()) list.push_back(text);
    special_tokens_["additional_special_tokens"] = std::move(list);
  }
}

void ChatTemplate::set_special_token(const std::string& name, Json value) { special_tokens_[name] = std::move(value); }

std::vector<std::string> ChatTemplate::names() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : templates_) out.push_back(name);
  return out;
}

const Template& ChatTemplate::select(const ChatRequest& request) const {
  if (!request.template_name.empty()) {
    auto it = templates_.find(request.template_name);
    if (it == templates_.end())
      fail(ErrorCode::kInvalidArgument, origin_, "no chat template named '{}' (available: {})", request.template_name, join(names()));
    return it->second;
  }
  if (templates_.size() == 1) return templates_.begin()->second;
  if (!request.tools.is_null() && templates_.count("tool_use")) return templates_.at("tool_use");
  if (templates_.count("default")) return templates_.at("default");
  fail(ErrorCode::kInvalidArgument, origin_, "several chat templates and none named 'default' (available: {}); name one",
       join(names()));
}

std::string ChatTemplate::render(const ChatRequest& request, const RenderOptions& options) const {
  const Template& t = select(request);
  Json add_generation_prompt = request.add_generation_prompt;
  std::vector<Binding> bindings;
  bindings.reserve(4 + special_tokens_.size() + request.variables.size());
  bindings.push_back({"messages", &request.messages});
  bindings.push_back({"add_generation_prompt", &add_generation_prompt});
  bindings.push_back({"tools", &request.tools});
  bindings.push_back({"documents", &request.documents});
  for (const auto& [name, value] : special_tokens_.items()) bindings.push_back({name, &value});
  if (request.variables.is_object())
    for (const auto& [name, value] : request.variables.items()) bindings.push_back({name, &value});
  return t.render(bindings, options);
}

}  // namespace ogai::chat
