#include "workflow/lora_contract.h"

#include <fmt/format.h>

#include "base/error.h"

namespace ogai::workflow {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& path, const std::string& expected, const json& got) {
  fail(ErrorCode::kInvalidPackage, path, "expected {}, got {}", expected, got.is_null() ? "nothing" : got.dump());
}

const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string text(const json& object, const char* key, const std::string& path) {
  const json& v = member(object, key);
  if (!v.is_string() || v.get<std::string>().empty()) bad(path + "." + key, "a non-empty string", v);
  return v.get<std::string>();
}

std::int64_t positive(const json& object, const char* key, const std::string& path) {
  const json& v = member(object, key);
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0 || v.get<std::int64_t>() > (1 << 24))
    bad(path + "." + key, "an integer in 1..16777216", v);
  return v.get<std::int64_t>();
}

std::optional<std::int64_t> optional_positive(const json& object, const char* key, const std::string& path) {
  if (member(object, key).is_null()) return std::nullopt;
  return positive(object, key, path);
}

std::optional<double> optional_number(const json& object, const char* key, const std::string& path) {
  const json& v = member(object, key);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number()) bad(path + "." + key, "a number", v);
  return v.get<double>();
}

std::vector<LoraTarget> read_targets(const json& targets) {
  std::vector<LoraTarget> out;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const std::string path = fmt::format("adapters.target_manifest.targets[{}]", i);
    const json& t = targets[i];
    out.push_back({text(t, "id", path), text(t, "component", path), text(t, "initializer", path),
                   positive(t, "input_features", path), positive(t, "output_features", path)});
  }
  return out;
}

LoraArtifact read_artifact(const std::string& alias, const metadata::AdapterArtifact& a) {
  const std::string path = "adapters.artifacts." + alias;
  LoraArtifact out{alias, a.identity, a.version, a.dtype, a.index, a.rank, a.alpha, {}, {}};
  if (a.rank <= 0 || a.rank > (1 << 24)) fail(ErrorCode::kInvalidPackage, path + ".rank", "expected 1..16777216, got {}", a.rank);
  for (const auto& w : a.weights)
    out.weights.push_back({w.format, w.location, w.config_location, w.scale_encoding != "baked"});
  for (std::size_t i = 0; i < a.bindings.size(); ++i) {
    const std::string bpath = fmt::format("{}.bindings[{}]", path, i);
    const json& b = a.bindings[i];
    out.bindings.push_back({text(b, "target", bpath), text(b, "weight_key", bpath), optional_positive(b, "rank", bpath),
                            optional_number(b, "alpha", bpath)});
  }
  return out;
}

void read_cache(const json& cache, LoraContract& c) {
  if (cache.is_null()) return;
  if (!member(cache, "max_entries").is_null())
    c.cache_entries = static_cast<std::size_t>(positive(cache, "max_entries", "adapters.cache"));
  const json& eviction = member(cache, "eviction");
  if (!eviction.is_null() && eviction != "lru") bad("adapters.cache.eviction", "lru", eviction);
}

}  // namespace

const LoraArtifact* LoraContract::by_alias(const std::string& alias) const {
  for (const auto& a : artifacts)
    if (a.alias == alias) return &a;
  return nullptr;
}

const LoraArtifact* LoraContract::by_index(std::int64_t index) const {
  for (const auto& a : artifacts)
    if (a.index == index) return &a;
  return nullptr;
}

const LoraTarget* LoraContract::target(const std::string& id) const {
  for (const auto& t : targets)
    if (t.id == id) return &t;
  return nullptr;
}

std::string LoraContract::aliases() const {
  std::vector<std::string> names;
  for (const auto& a : artifacts) names.push_back(a.alias);
  return fmt::format("{}", fmt::join(names, ", "));
}

LoraContract lora_contract(const metadata::Adapters& adapters, const std::filesystem::path& root) {
  LoraContract c;
  c.root = root;
  if (!adapters.targets.is_array()) bad("adapters.target_manifest.targets", "a list", adapters.targets);
  c.targets = read_targets(adapters.targets);
  for (const auto& [alias, artifact] : adapters.artifacts) c.artifacts.push_back(read_artifact(alias, artifact));
  for (const auto& a : c.artifacts)
    for (std::size_t i = 0; i < a.bindings.size(); ++i)
      if (!c.target(a.bindings[i].target))
        fail(ErrorCode::kInvalidPackage, fmt::format("adapters.artifacts.{}.bindings[{}].target", a.alias, i),
             "'{}' is not a target of adapters.target_manifest", a.bindings[i].target);
  c.segments = adapters.selection.segments;
  c.counts = adapters.selection.adapter_counts;
  c.scales = adapters.selection.scales;
  c.active = adapters.selection.active;
  c.max_adapters = adapters.selection.max_adapters;
  if (c.max_adapters <= 0 || c.max_adapters > 1024)
    fail(ErrorCode::kInvalidPackage, "adapters.selection.max_adapters", "expected 1..1024, got {}", c.max_adapters);
  read_cache(adapters.cache, c);
  const json& invalidate = member(adapters.planning, "invalidate_capture_on_eviction");
  if (!invalidate.is_null()) {
    if (!invalidate.is_boolean()) bad("adapters.planning.invalidate_capture_on_eviction", "a boolean", invalidate);
    c.invalidate_capture_on_eviction = invalidate.get<bool>();
  }
  c.portable_fallback = adapters.portable_fallback;
  c.capability = adapters.application_capability;
  return c;
}

}  // namespace ogai::workflow
