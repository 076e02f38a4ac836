// V-ADAPTER: the top-level LoRA `adapters` section (targets, selection, artifacts).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {
namespace {

const nlohmann::json* find_target(const Adapters& a, const std::string& id) {
  if (!a.targets.is_array()) return nullptr;
  for (const auto& t : a.targets)
    if (t.is_object() && t.value("id", "") == id) return &t;
  return nullptr;
}

// A target (and its output slice) may pin the rank and alpha every binding to it must use; a
// binding's own rank/alpha override the artifact's.
void check_binding_policy(const Adapters& a, const AdapterArtifact& art, const std::string& path, Diagnostics& d) {
  if (!art.bindings.is_array()) return;
  for (std::size_t i = 0; i < art.bindings.size(); ++i) {
    const nlohmann::json& b = art.bindings[i];
    if (!b.is_object()) continue;
    const nlohmann::json* target = find_target(a, b.value("target", ""));
    if (!target) continue;
    const std::int64_t rank = b.contains("rank") && b["rank"].is_number_integer() ? b["rank"].get<std::int64_t>() : art.rank;
    const double alpha = b.contains("alpha") && b["alpha"].is_number() ? b["alpha"].get<double>() : art.alpha;
    const std::string bpath = fmt::format("{}.bindings[{}]", path, i);
    for (const auto& [policy, where] : {std::pair{target, "target"}, std::pair{target->contains("output_slice") ? &(*target)["output_slice"] : nullptr, "output-slice"}}) {
      if (!policy || !policy->is_object()) continue;
      if (policy->contains("rank") && (*policy)["rank"].is_number_integer() && (*policy)["rank"].get<std::int64_t>() != rank)
        d.report("V-ADAPTER", bpath, "effective rank {} differs from the {} policy's rank {}", rank, where,
                 (*policy)["rank"].get<std::int64_t>());
      if (policy->contains("alpha") && (*policy)["alpha"].is_number() && (*policy)["alpha"].get<double>() != alpha)
        d.report("V-ADAPTER", bpath, "effective alpha {} differs from the {} policy's alpha {}", alpha, where,
                 (*policy)["alpha"].get<double>());
    }
  }
}

}  // namespace

void check_adapters(const Document& doc, Diagnostics& d) {
  if (!doc.adapters) return;
  const Adapters& a = *doc.adapters;
  if (a.selection.max_adapters <= 0)
    d.report("V-ADAPTER", "adapters.selection.max_adapters", "max_adapters is {}; expected > 0", a.selection.max_adapters);
  std::set<std::string> targets(a.target_ids.begin(), a.target_ids.end());
  std::vector<std::int64_t> indices;
  for (const auto& [alias, art] : a.artifacts) {
    std::string path = "adapters.artifacts." + alias;
    indices.push_back(art.index);
    for (const std::string& target : art.binding_targets)
      if (!targets.count(target))
        d.report("V-ADAPTER", path + ".bindings", "target '{}' is not listed in adapters.target_manifest.targets", target);
    check_binding_policy(a, art, path, d);
    std::string prefix = "adapters/" + alias + "/";
    for (std::size_t i = 0; i < art.weights.size(); ++i) {
      const auto& w = art.weights[i];
      std::string wpath = fmt::format("{}.weights[{}]", path, i);
      if (!w.location.starts_with(prefix) || w.location.find("..") != std::string::npos)
        d.report("V-ADAPTER", wpath + ".location", "'{}' must lie under '{}'", w.location, prefix);
      if (w.config_location && (!w.config_location->starts_with(prefix) || w.config_location->find("..") != std::string::npos))
        d.report("V-ADAPTER", wpath + ".config_location", "'{}' must lie under '{}'", *w.config_location, prefix);
      if (w.format == "hf_peft" && !w.config_location)
        d.report("V-ADAPTER", wpath + ".config_location", "an hf_peft weight needs config_location (adapter_config.json)");
    }
  }
  std::sort(indices.begin(), indices.end());
  for (std::size_t i = 0; i < indices.size(); ++i)
    if (indices[i] != static_cast<std::int64_t>(i)) {
      d.report("V-ADAPTER", "adapters.artifacts", "artifact indices must be contiguous from 0; got [{}]", fmt::join(indices, ", "));
      break;
    }
}

}  // namespace ogai::metadata::detail
