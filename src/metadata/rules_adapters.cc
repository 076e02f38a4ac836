// V-ADAPTER: the top-level LoRA `adapters` section (targets, selection, artifacts).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {

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
