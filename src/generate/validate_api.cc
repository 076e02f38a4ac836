// The public ogai::validate() over the metadata stage and the loadable-text check.
#include "ogai/validate.h"

#include "generate/loadable_check.h"
#include "metadata/package.h"
#include "ogai/error.h"

namespace ogai {

ValidationResult validate(const std::filesystem::path& package) {
  metadata::ValidationReport report;
  try {
    report = metadata::validate_package(package);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kUnsupported) throw;  // an importer refusal is a finding, not a failure
    return {{{"IMPORT", e.where(), e.message()}}};
  }
  generate::check_loadable_text(report);
  if (report.valid()) generate::check_loadable_graphs(report);
  ValidationResult result;
  for (const auto& d : report.diagnostics.items()) result.problems.push_back({d.rule, d.path, d.message});
  return result;
}

}  // namespace ogai
