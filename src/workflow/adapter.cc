#include "workflow/adapter.h"

#include <fmt/format.h>

#include "base/error.h"

namespace ogai::workflow {

const AdapterEntry* find_adapter(const std::string& abi, const std::string& version) {
  for (const auto& entry : builtin_adapters())
    if (entry.abi == abi && entry.version == version) return &entry;
  return nullptr;
}

std::unique_ptr<const Adapter> prepare_adapter(const AdapterSite& site, const std::string& step_path) {
  const auto& impl = site.component.implementation;
  if (const auto* entry = find_adapter(impl.abi, impl.version)) return entry->make(site);
  std::string known;
  for (const auto& entry : builtin_adapters())
    known += fmt::format("{}{}@{}", known.empty() ? "" : ", ", entry.abi, entry.version);
  fail(ErrorCode::kUnsupported, step_path + " (" + site.path + ".implementation)",
       "adapter ABI {}@{} is not executed by ogai's workflow interpreter (it implements {})", impl.abi, impl.version,
       known);
}

const std::string& adapter_role(const metadata::Component& component, const std::string& port) {
  if (component.contract)
    for (const auto& [role, bound] : component.contract->bindings)
      if (bound == port) return role;
  return port;
}

}  // namespace ogai::workflow
