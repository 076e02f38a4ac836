#include "metadata/runnable.h"

#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata {
namespace {

void check_capability_ids(const std::vector<std::string>& ids, const std::string& path, Diagnostics& d) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (!detail::builtin_capabilities().count(ids[i]) && ids[i].find('.') == std::string::npos)
      d.report("RUN", fmt::format("{}[{}]", path, i), "capability '{}' is neither one of the 30 built-in v1 "
               "capabilities nor an extension id (extensions contain a '.'); ogai cannot run a package that needs it",
               ids[i]);
}

}  // namespace

void check_runnable(const Document& doc, Diagnostics& d) {
  check_capability_ids(doc.required_capabilities, "required_capabilities", d);
  if (!doc.workflow && !(doc.model && doc.model->io)) {
    d.report("RUN", "pipeline", "the document declares nothing to run: a v1 package declares pipeline.workflow (or, "
             "for a legacy single decoder, model.io)");
    return;
  }
  if (!doc.workflow) return;
  check_capability_ids(doc.workflow->manifest.capabilities, "pipeline.workflow.manifest.capabilities", d);
  for (const auto& [name, in] : doc.workflow->inputs)
    if (in.source.kind == InputSource::Kind::kLiteral && !in.default_value)
      d.report("RUN", "pipeline.workflow.inputs." + name + ".default", "literal input '{}' has no `default`, so there "
               "is no value to run with", name);
}

}  // namespace ogai::metadata
