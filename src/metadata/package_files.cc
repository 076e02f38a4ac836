#include "metadata/package_files.h"

#include <cstdint>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "metadata/file_kind.h"

namespace ogai::metadata {

namespace fs = std::filesystem;

fs::path find_metadata_file(const fs::path& dir_or_file) {
  std::error_code ec;
  if (!fs::exists(dir_or_file, ec))  // the cause when the path itself is refused (a name over NAME_MAX)
    fail(ErrorCode::kNotFound, dir_or_file.string(), "{}", ec ? ec.message() : "no such file or directory");
  if (!fs::is_directory(dir_or_file, ec)) {
    refuse_non_metadata_file(dir_or_file);
    return dir_or_file;
  }
  for (const char* name : {"inference_metadata.yaml", "inference_metadata.yml", "inference_metadata.json"})
    if (fs::is_regular_file(dir_or_file / name, ec)) return dir_or_file / name;
  refuse_non_package_directory(dir_or_file);  // a GGUF file or a Hugging Face checkpoint: the next step
  fail(ErrorCode::kNotFound, dir_or_file.string(),
       "no inference_metadata.yaml, inference_metadata.yml or inference_metadata.json in this directory");
}

bool has_metadata_file(const fs::path& dir_or_file) {
  std::error_code ec;
  if (!fs::exists(dir_or_file, ec)) return false;
  if (!fs::is_directory(dir_or_file, ec)) return true;
  for (const char* name : {"inference_metadata.yaml", "inference_metadata.yml", "inference_metadata.json"})
    if (fs::is_regular_file(dir_or_file / name, ec)) return true;
  return false;
}

namespace {

bool inside(const fs::path& root, const fs::path& path) {
  auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return r == root.end();
}

}  // namespace

std::optional<fs::path> resolve_in_package(const fs::path& root, const std::string& relative, const std::string& doc_path,
                                           Diagnostics& diags) {
  if (relative.empty()) {
    diags.report("PKG", doc_path, "empty path; expected a package-relative file");
    return std::nullopt;
  }
  fs::path rel(relative);
  if (rel.is_absolute()) {
    diags.report("PKG", doc_path, "'{}' is absolute; artifacts are package-relative", relative);
    return std::nullopt;
  }
  std::error_code ec;
  fs::path candidate = root / rel;
  if (!fs::exists(candidate, ec)) {
    diags.report("PKG", doc_path, "artifact '{}' does not exist (looked for {})", relative, candidate.string());
    return std::nullopt;
  }
  fs::path canonical = fs::canonical(candidate, ec);
  if (ec || !inside(root, canonical)) {
    diags.report("PKG", doc_path, "'{}' resolves to {}, outside the package {}; `..` and symlink escapes are refused",
                 relative, ec ? candidate.string() : canonical.string(), root.string());
    return std::nullopt;
  }
  if (!fs::is_regular_file(canonical, ec)) {
    diags.report("PKG", doc_path, "'{}' is not a regular file", relative);
    return std::nullopt;
  }
  return canonical;
}

namespace {

void resolve_artifacts(const Document& doc, PackageFiles& files, Diagnostics& diags) {
  const fs::path& root = files.root;
  if (doc.workflow) {
    for (const auto& [name, c] : doc.workflow->components) {
      if (c.implementation.artifact.empty()) continue;  // V-COMP reports a missing ONNX artifact
      std::string path = "pipeline.workflow.components." + name + ".implementation.artifact";
      auto resolved = resolve_in_package(root, c.implementation.artifact, path, diags);
      if (resolved && c.implementation.kind == Implementation::Kind::kOnnx) files.component_artifacts[name] = *resolved;
    }
    for (const auto& [name, in] : doc.workflow->inputs)
      if (in.source.kind == InputSource::Kind::kArtifact && !in.source.path.empty())
        resolve_in_package(root, in.source.path, "pipeline.workflow.inputs." + name + ".source.path", diags);
  }
  if (!doc.workflow && doc.model && doc.model->io) {
    // A legacy model.io document names no artifact; its graph is model.onnx beside it.
    std::error_code ec;
    for (const char* name : {"model.onnx", "model.onnx.textproto"})
      if (fs::exists(root / name, ec)) {
        if (auto resolved = resolve_in_package(root, name, "model.io", diags)) files.component_artifacts["model"] = *resolved;
        break;
      }
    if (!files.component_artifacts.count("model"))
      diags.report("PKG", "model.io", "a legacy model.io package needs its graph as model.onnx (or model.onnx.textproto) "
                   "beside the metadata; none found in {}", root.string());
  }
  if (doc.adapters)
    for (const auto& [alias, art] : doc.adapters->artifacts)
      for (std::size_t i = 0; i < art.weights.size(); ++i) {
        std::string path = "adapters.artifacts." + alias + ".weights[" + std::to_string(i) + "]";
        resolve_in_package(root, art.weights[i].location, path + ".location", diags);
        if (art.weights[i].config_location)
          resolve_in_package(root, *art.weights[i].config_location, path + ".config_location", diags);
      }
  if (doc.speculative && doc.speculative->vocabulary.artifact)
    resolve_in_package(root, *doc.speculative->vocabulary.artifact, "speculative.vocabulary.artifact", diags);
}

const nlohmann::json& field(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::optional<nlohmann::json> read_side_json(const fs::path& file, Diagnostics& diags) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  try {
    return parse_json_bounded<nlohmann::json>(read_file(file), file.filename().string());
  } catch (const Error& e) {
    diags.report("PKG", file.filename().string(), "{} is not valid JSON: {}", file.filename().string(), e.message());
    return std::nullopt;
  }
}

// A value as an error quotes it: its JSON, cut to 80 bytes.
std::string shown(const nlohmann::json& v) {
  std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 80) + "... (" + std::to_string(text.size()) + " bytes)";
  return text;
}

// generation_config.json's sampling fields; a field of the wrong type or out of its range is a
// PKG problem naming it (null reads as absent, as transformers writes unset fields).
void read_generation_sampling(const nlohmann::json& gen, TextSources::Sampling& out, Diagnostics& diags) {
  auto number = [&](const char* name, std::optional<double>& into, double lo, double hi, const char* range) {
    const nlohmann::json& v = field(gen, name);
    if (v.is_null()) return;
    const std::string where = std::string("generation_config.json.") + name;
    if (!v.is_number()) return diags.report("PKG", where, "expected a number, got {}", shown(v));
    const double d = v.get<double>();
    if (!(d >= lo && d <= hi)) return diags.report("PKG", where, "{} is out of range: expected {}", shown(v), range);
    into = d;
  };
  constexpr double kBig = 1e30;
  number("temperature", out.temperature, 0, kBig, "a number >= 0");
  number("top_p", out.top_p, 0, 1, "a number in [0, 1]");
  number("min_p", out.min_p, 0, 1, "a number in [0, 1]");
  number("typical_p", out.typical_p, 0, 1, "a number in [0, 1]");
  number("repetition_penalty", out.repetition_penalty, 1e-30, kBig, "a number > 0");
  const nlohmann::json& k = field(gen, "top_k");
  if (k.is_number_integer() && k.get<std::int64_t>() >= 0 && k.get<std::int64_t>() <= INT32_MAX)
    out.top_k = k.get<std::int64_t>();
  else if (!k.is_null())
    diags.report("PKG", "generation_config.json.top_k", "expected an integer in [0, 2^31), got {}", shown(k));
  const nlohmann::json& sample = field(gen, "do_sample");
  if (sample.is_boolean()) out.do_sample = sample.get<bool>();
  else if (!sample.is_null()) diags.report("PKG", "generation_config.json.do_sample", "expected true or false, got {}", sample.dump());
}

// generation_config.json's eos_token_id: a token id or a list of them, each in [0, 2^31).
std::vector<std::int64_t> read_eos_ids(const nlohmann::json& ids, Diagnostics& diags) {
  std::vector<std::int64_t> out;
  auto one = [&](const nlohmann::json& id, const std::string& where) {
    if (id.is_number_integer() && id.get<std::int64_t>() >= 0 && id.get<std::int64_t>() <= INT32_MAX)
      return out.push_back(id.get<std::int64_t>());
    diags.report("PKG", where, "expected a token id (an integer in [0, 2^31)), got {}", shown(id));
  };
  const std::string where = "generation_config.json.eos_token_id";
  if (ids.is_null()) return out;
  if (!ids.is_array()) {
    one(ids, where);
    return out;
  }
  for (std::size_t i = 0; i < ids.size(); ++i) one(ids[i], where + "[" + std::to_string(i) + "]");
  return out;
}

// tokenizer_config.json's fields that steer tokenizing and templates, when present, must have
// their types: special tokens a string or {"content": string}, flags booleans, lengths integers.
void check_tokenizer_config(const nlohmann::json& cfg, Diagnostics& diags) {
  if (!cfg.is_object()) return diags.report("PKG", "tokenizer_config.json", "expected a JSON object, got {}", shown(cfg));
  for (const char* name : {"bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token"}) {
    const nlohmann::json& v = field(cfg, name);
    if (v.is_null() || v.is_string() || field(v, "content").is_string()) continue;
    diags.report("PKG", std::string("tokenizer_config.json.") + name,
                 "expected a string or an object with a string \"content\", got {}", shown(v));
  }
  for (const char* name : {"add_bos_token", "add_eos_token", "clean_up_tokenization_spaces"}) {
    const nlohmann::json& v = field(cfg, name);
    if (!v.is_null() && !v.is_boolean())
      diags.report("PKG", std::string("tokenizer_config.json.") + name, "expected true or false, got {}", shown(v));
  }
  const nlohmann::json& length = field(cfg, "model_max_length");
  if (!length.is_null() && !(length.is_number() && length.get<double>() >= 1))
    diags.report("PKG", "tokenizer_config.json.model_max_length", "expected a number >= 1, got {}", shown(length));
}

void discover_tokenizer(const Document& doc, PackageFiles& files, Diagnostics& diags) {
  const auto* tok = doc.package && doc.package->tokenizer ? &*doc.package->tokenizer : nullptr;
  std::vector<fs::path> declared;
  if (tok) {
    for (std::size_t i = 0; i < tok->artifacts.size(); ++i)
      if (auto p = resolve_in_package(files.root, tok->artifacts[i], "package.tokenizer.artifacts[" + std::to_string(i) + "].location", diags))
        declared.push_back(*p);
    if (const SpecialToken* eos = find_named(tok->special_tokens, "eos")) files.text.special_tokens_eos_id = eos->id;
  }
  for (const auto& p : declared)
    if (p.filename() == "tokenizer.json") files.text.tokenizer_json = p;
  if (!files.text.tokenizer_json && declared.size() == 1) files.text.tokenizer_json = declared[0];
  if (tok && tok->artifacts.size() > 1 && !files.text.tokenizer_json && declared.size() == tok->artifacts.size())
    diags.report("PKG", "package.tokenizer.artifacts", "several tokenizer artifacts are listed, so one must be tokenizer.json");
  std::error_code ec;
  if (tok && tok->artifacts.empty() && fs::is_regular_file(files.root / "tokenizer.json", ec))
    files.text.tokenizer_json = files.root / "tokenizer.json";
  if (!tok && fs::is_regular_file(files.root / "tokenizer.json", ec)) files.text.tokenizer_json = files.root / "tokenizer.json";
}

void discover_templates_and_eos(PackageFiles& files, Diagnostics& diags) {
  TextSources& t = files.text;
  std::error_code ec;
  if (fs::is_regular_file(files.root / "chat_template.jinja", ec)) t.chat_template_file = files.root / "chat_template.jinja";
  if (auto cfg = read_side_json(files.root / "tokenizer_config.json", diags)) {
    t.tokenizer_config = files.root / "tokenizer_config.json";
    const nlohmann::json& tmpl = field(*cfg, "chat_template");
    if (tmpl.is_string()) t.chat_template = tmpl.get<std::string>();
    if (tmpl.is_array()) {
      for (const auto& entry : tmpl)
        if (field(entry, "name") == "default" && field(entry, "template").is_string())
          t.chat_template = field(entry, "template").get<std::string>();
    } else if (!tmpl.is_null() && !tmpl.is_string()) {
      diags.report("PKG", "tokenizer_config.json.chat_template",
                   "expected a string or a list of {{\"name\", \"template\"}} objects, got {}", shown(tmpl));
    }
    const nlohmann::json& eos = field(*cfg, "eos_token");
    if (eos.is_string()) t.tokenizer_config_eos_token = eos.get<std::string>();
    if (field(eos, "content").is_string()) t.tokenizer_config_eos_token = field(eos, "content").get<std::string>();
    check_tokenizer_config(*cfg, diags);
  }
  if (auto gen = read_side_json(files.root / "generation_config.json", diags)) {
    t.generation_config = files.root / "generation_config.json";
    t.generation_config_eos_ids = read_eos_ids(field(*gen, "eos_token_id"), diags);
    read_generation_sampling(*gen, t.generation_config_sampling, diags);
  }
}

}  // namespace

PackageFiles resolve_package_files(const Document& doc, const fs::path& metadata_file, Diagnostics& diags) {
  PackageFiles files;
  files.metadata_file = metadata_file;
  files.root = fs::canonical(fs::absolute(metadata_file).parent_path());
  resolve_artifacts(doc, files, diags);
  discover_tokenizer(doc, files, diags);
  discover_templates_and_eos(files, diags);
  return files;
}

}  // namespace ogai::metadata
