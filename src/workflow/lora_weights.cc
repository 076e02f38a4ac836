#include "workflow/lora_weights.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "metadata/package_files.h"
#include "workflow/safetensors.h"

namespace ogai::workflow {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct Site {  // one binding of the artifact being loaded
  const LoraTarget* target;
  const LoraBinding* binding;
  std::int64_t rank;
  double alpha;
};

fs::path resolve(const LoraContract& c, const std::string& relative, const std::string& doc_path) {
  metadata::Diagnostics diags;
  auto path = metadata::resolve_in_package(c.root, relative, doc_path, diags);
  if (!path) fail(ErrorCode::kNotFound, doc_path, "{}", diags.items().front().message);
  return *path;
}

json read_json_file(const fs::path& path, std::uint64_t limit) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) fail(ErrorCode::kNotFound, path.string(), "cannot read its size: {}", ec.message());
  if (size > limit) fail(ErrorCode::kParse, path.string(), "{} bytes exceeds the limit of {} bytes", size, limit);
  return parse_json_bounded<json>(read_file(path), path.string());
}

std::vector<Site> sites(const LoraContract& c, const LoraArtifact& a) {
  std::vector<Site> out;
  for (const auto& b : a.bindings)
    out.push_back({c.target(b.target), &b, b.rank.value_or(a.rank), b.alpha.value_or(a.alpha)});
  return out;
}

float factor_of(const LoraWeightFile& w, const Site& s, bool rslora) {
  if (!w.alpha_over_rank) return 1.0f;
  const double rank = rslora ? std::sqrt(static_cast<double>(s.rank)) : static_cast<double>(s.rank);
  return static_cast<float>(s.alpha / rank);
}

void check_shape(const std::string& where, const char* name, std::size_t got, std::int64_t rows, std::int64_t cols,
                 const Site& s) {
  if (got != static_cast<std::size_t>(rows * cols))
    fail(ErrorCode::kInvalidPackage, where,
         "shape mismatch with target '{}' ({}.{}): {} has {} values, expected {} x {} = {} (rank {}, {} input and {} output "
         "features)",
         s.target->id, s.target->component, s.target->initializer, name, got, rows, cols, rows * cols, s.rank,
         s.target->input_features, s.target->output_features);
}

void store(LoadedLora& out, const Site& s, float factor, std::vector<float> a, std::vector<float> b) {
  LoraFactors f{s.target->input_features, s.target->output_features, s.rank, factor, std::move(a), std::move(b)};
  out.targets[{s.target->component, s.target->initializer}] = std::move(f);
}

std::vector<float> json_floats(const json& v, const std::string& where) {
  if (!v.is_array()) fail(ErrorCode::kParse, where, "expected a flat list of numbers, got {}", v.type_name());
  std::vector<float> out;
  out.reserve(v.size());
  for (const auto& x : v) {
    if (!x.is_number()) fail(ErrorCode::kParse, where, "expected numbers, got {}", x.dump());
    out.push_back(x.get<float>());
    if (!std::isfinite(out.back())) fail(ErrorCode::kParse, where, "value {} is not a finite float32", x.dump());
  }
  return out;
}

void load_json(const LoraContract& c, const LoraArtifact& a, const LoraWeightFile& w, const std::string& doc, LoadedLora& out) {
  if (a.dtype != "float32" && a.dtype != "fp32")
    fail(ErrorCode::kUnsupported, "adapters.artifacts." + a.alias + ".dtype",
         "the portable JSON adapter format holds float32 factors; the artifact declares {}", a.dtype);
  const fs::path path = resolve(c, w.location, doc + ".location");
  const json bundle = read_json_file(path, kMaxLoraJsonBytes);
  const json* targets = bundle.is_object() && bundle.contains("targets") ? &bundle["targets"] : nullptr;
  if (!targets || !targets->is_object()) fail(ErrorCode::kParse, path.string(), "expected {{\"targets\": {{KEY: {{a, b}}}}}}");
  for (const Site& s : sites(c, a)) {
    const std::string where = path.string() + " targets." + s.binding->weight_key;
    auto it = targets->find(s.binding->weight_key);
    if (it == targets->end() || !it->is_object())
      fail(ErrorCode::kNotFound, path.string(), "has no target key '{}' (adapters.artifacts.{} binds it to target '{}')",
           s.binding->weight_key, a.alias, s.target->id);
    auto fa = json_floats(it->value("a", json()), where + ".a");
    auto fb = json_floats(it->value("b", json()), where + ".b");
    check_shape(where + ".a", "A", fa.size(), s.rank, s.target->input_features, s);
    check_shape(where + ".b", "B", fb.size(), s.target->output_features, s.rank, s);
    store(out, s, factor_of(w, s, false), std::move(fa), std::move(fb));
  }
  out.source = path.string();
}

struct PeftConfig {
  std::int64_t r = 0;
  double alpha = 0;
  bool rslora = false;
  json target_modules;
};

PeftConfig read_peft_config(const fs::path& path) {
  const json cfg = read_json_file(path, kMaxPeftConfigBytes);
  const std::string where = path.string();
  if (!cfg.is_object()) fail(ErrorCode::kParse, where, "expected a JSON object (PEFT adapter_config.json)");
  PeftConfig p;
  if (!cfg.contains("r") || !cfg["r"].is_number_integer() || cfg["r"].get<std::int64_t>() <= 0)
    fail(ErrorCode::kParse, where + " r", "expected a positive integer rank, got {}", cfg.value("r", json()).dump());
  p.r = cfg["r"].get<std::int64_t>();
  if (!cfg.contains("lora_alpha") || !cfg["lora_alpha"].is_number())
    fail(ErrorCode::kParse, where + " lora_alpha", "expected a number, got {}", cfg.value("lora_alpha", json()).dump());
  p.alpha = cfg["lora_alpha"].get<double>();
  p.rslora = cfg.value("use_rslora", false);
  if (cfg.value("use_dora", false)) fail(ErrorCode::kUnsupported, where + " use_dora", "DoRA adapters are not executed");
  for (const char* key : {"rank_pattern", "alpha_pattern"})
    if (cfg.contains(key) && !cfg[key].is_null() && !cfg[key].empty())
      fail(ErrorCode::kUnsupported, where + " " + key, "per-module rank/alpha patterns are not executed");
  p.target_modules = cfg.value("target_modules", json());
  return p;
}

bool targets_module(const json& modules, const std::string& key) {
  if (!modules.is_array()) return true;  // a regex string or absent: not checked
  const std::string last = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
  for (const auto& m : modules)
    if (m.is_string() && (m.get<std::string>() == key || m.get<std::string>() == last)) return true;
  return false;
}

// The tensor for `key`'s factor (`lora_A` / `lora_B`): PEFT's `base_model.model.<key>.<which>.weight`, the bare
// `<key>.<which>.weight`, or the one tensor whose name ends with `.<key>.<which>.weight`.
std::string peft_tensor(const SafetensorsFile& f, const std::string& key, const char* which) {
  const std::string tail = key + "." + which + ".weight";
  for (const std::string& name : {"base_model.model." + tail, tail})
    if (f.find(name)) return name;
  std::vector<std::string> hits;
  for (const auto& [name, _] : f.entries())
    if (name.size() > tail.size() && name.ends_with("." + tail)) hits.push_back(name);
  if (hits.size() == 1) return hits[0];
  fail(ErrorCode::kNotFound, f.path().string(), "{} tensor for '{}' ({}): expected base_model.model.{}{}", hits.empty() ? "no" : "more than one",
       key, fmt::join(hits, ", "), tail, hits.empty() ? "" : " only once");
}

std::vector<float> peft_factor(const SafetensorsFile& f, const std::string& name, std::int64_t rows, std::int64_t cols, const Site& s) {
  const SafetensorsEntry& e = *f.find(name);
  const std::string where = f.path().string() + " tensor '" + name + "'";
  if (e.shape.size() != 2 || e.shape[0] != rows || e.shape[1] != cols)
    fail(ErrorCode::kInvalidPackage, where, "shape mismatch with target '{}' ({}.{}): shape [{}], expected [{}, {}]", s.target->id,
         s.target->component, s.target->initializer, fmt::join(e.shape, ", "), rows, cols);
  auto values = f.floats(name);
  for (float v : values)
    if (!std::isfinite(v)) fail(ErrorCode::kParse, where, "holds a non-finite value ({})", v);
  return values;
}

void load_peft(const LoraContract& c, const LoraArtifact& a, const LoraWeightFile& w, const std::string& doc, LoadedLora& out) {
  if (!w.config_location) fail(ErrorCode::kInvalidPackage, doc + ".config_location", "an hf_peft weight needs adapter_config.json");
  const PeftConfig cfg = read_peft_config(resolve(c, *w.config_location, doc + ".config_location"));
  const SafetensorsFile file = SafetensorsFile::open(resolve(c, w.location, doc + ".location"));
  for (const Site& s : sites(c, a)) {
    const std::string& key = s.binding->weight_key;
    if (cfg.r != s.rank || std::abs(cfg.alpha - s.alpha) > 1e-6 * std::max(1.0, std::abs(s.alpha)))
      fail(ErrorCode::kInvalidPackage, doc + ".config_location",
           "adapter_config.json has r {} and lora_alpha {}; adapters.artifacts.{} declares rank {} and alpha {} for '{}'", cfg.r,
           cfg.alpha, a.alias, s.rank, s.alpha, key);
    if (!targets_module(cfg.target_modules, key))
      fail(ErrorCode::kInvalidPackage, doc + ".config_location", "adapter_config.json target_modules {} do not include '{}'",
           cfg.target_modules.dump(), key);
    auto fa = peft_factor(file, peft_tensor(file, key, "lora_A"), s.rank, s.target->input_features, s);
    auto fb = peft_factor(file, peft_tensor(file, key, "lora_B"), s.target->output_features, s.rank, s);
    store(out, s, factor_of(w, s, cfg.rslora), std::move(fa), std::move(fb));
  }
  out.source = file.path().string();
}

}  // namespace

LoadedLora load_lora(const LoraContract& contract, const LoraArtifact& artifact) {
  LoadedLora out;
  out.alias = artifact.alias;
  std::vector<std::string> formats;
  for (std::size_t i = 0; i < artifact.weights.size(); ++i) {
    const LoraWeightFile& w = artifact.weights[i];
    const std::string doc = fmt::format("adapters.artifacts.{}.weights[{}]", artifact.alias, i);
    if (w.format == "json") load_json(contract, artifact, w, doc, out);
    else if (w.format == "hf_peft") load_peft(contract, artifact, w, doc, out);
    else {
      formats.push_back(w.format);
      continue;
    }
    return out;
  }
  fail(ErrorCode::kUnsupported, "adapters.artifacts." + artifact.alias + ".weights",
       "no weight file in a format ogai reads (json, hf_peft); declared: [{}]", fmt::join(formats, ", "));
}

}  // namespace ogai::workflow
