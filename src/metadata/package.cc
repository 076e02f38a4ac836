#include "metadata/package.h"

#include "base/error.h"
#include "base/file.h"
#include "metadata/admission.h"
#include "metadata/parse.h"
#include "metadata/validate.h"
#include "metadata/vocabulary.h"

namespace ogai::metadata {

std::optional<std::int64_t> Package::max_sequence_length() const {
  return document.model ? document.model->max_sequence_length : std::nullopt;
}

std::optional<std::int64_t> Package::sliding_window() const {
  return document.model && document.model->attention ? document.model->attention->sliding_window : std::nullopt;
}

ValidationReport validate_text(std::string_view text, const std::string& origin) {
  ValidationReport report;
  Package package;
  package.document = parse_document_text(text, origin, report.diagnostics);
  validate_document(package.document, report.diagnostics);
  package.decoder = derive_decoder_abi(package.document, {}, {});
  report.package = std::move(package);
  return report;
}

ValidationReport validate_package(const std::filesystem::path& dir_or_file, const ValidateOptions& options) {
  std::filesystem::path file = find_metadata_file(dir_or_file);
  ValidationReport report = validate_text(read_file(file), file.string());
  if (options.document_only) return report;
  Package& package = *report.package;
  package.files = resolve_package_files(package.document, file, report.diagnostics);
  package.graphs = admit_graphs(package.document, package.files, report.diagnostics);
  package.decoder = derive_decoder_abi(package.document, package.graphs, package.files.component_artifacts);
  check_vocabulary(package, report.diagnostics);
  return report;
}

Package load_package(const std::filesystem::path& dir_or_file) {
  ValidationReport report = validate_package(dir_or_file);
  if (!report.valid())
    fail(ErrorCode::kInvalidPackage, dir_or_file.string(), "the package is invalid ({} problems):\n{}",
         report.diagnostics.size(), report.diagnostics.text());
  return std::move(*report.package);
}

}  // namespace ogai::metadata
