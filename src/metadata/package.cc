#include "metadata/package.h"

#include "base/error.h"
#include "base/file.h"
#include "base/log.h"
#include "importer/import.h"
#include "importer/optimum_import.h"
#include "metadata/admission.h"
#include "metadata/parse.h"
#include "metadata/runnable.h"
#include "metadata/validate.h"
#include "metadata/validate_import.h"
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

namespace {

// An imported document's own rules, with the folder's facts attached (its artifacts resolve
// against the folder through genai_config.json's path).
ValidationReport validate_imported_text(const importer::ImportResult& imported) {
  ValidationReport report = validate_text(imported.document, imported.config_file.string() + " (imported)");
  report.imported_from = imported.config_file;
  if (report.package) report.package->imported = imported.facts;
  return report;
}

// A GenAI folder (or its genai_config.json), imported in memory.
ValidationReport validate_imported(const std::filesystem::path& dir_or_config) {
  importer::ImportResult imported = importer::import_genai_folder(dir_or_config);
  log(LogLevel::kWarn, "{}: no inference_metadata.yaml; imported {} in memory (`ogai import {}` writes it)",
      dir_or_config.string(), importer::kGenaiConfigName, dir_or_config.string());
  for (const auto& line : imported.facts.warnings) log(LogLevel::kWarn, "{}: {}", imported.config_file.string(), line);
  return validate_imported_text(imported);
}

// An Optimum / onnx-community export (config.json beside onnx/model.onnx), imported in memory.
ValidationReport validate_imported_optimum(const std::filesystem::path& dir, const std::string& dtype) {
  importer::ImportResult imported = importer::import_optimum_folder(dir, dtype);
  const std::optional<importer::OptimumGraph> graph = importer::optimum_decoder_graph(dir, dtype);
  log(LogLevel::kWarn, "{}: no inference_metadata.yaml; imported the Optimum export ({}, {}, dtype {}) in memory "
      "(`ogai import {}{}` writes it)", dir.string(), importer::kHfConfigName,
      graph ? graph->path.generic_string() : "?", graph ? graph->dtype : "?", dir.string(),
      dtype.empty() ? "" : " --dtype " + dtype);
  return validate_imported_text(imported);
}

void check_package(ValidationReport& report, const std::filesystem::path& file) {
  Package& package = *report.package;
  package.files = resolve_package_files(package.document, file, report.diagnostics);
  package.graphs = admit_graphs(package.document, package.files, report.diagnostics);
  package.decoder = derive_decoder_abi(package.document, package.graphs, package.files.component_artifacts);
  check_vocabulary(package, report.diagnostics);
  if (package.imported) {  // ORT GenAI stops on genai_config.json's ids alone (import.h)
    package.files.text.generation_config_eos_ids = package.imported->eos_ids;
    package.files.text.tokenizer_config_eos_token.reset();
  }
}

}  // namespace

ValidationReport validate_import(const importer::ImportResult& imported) {
  ValidationReport report = validate_imported_text(imported);
  check_package(report, imported.config_file);
  return report;
}

ValidationReport validate_package_text(std::string_view text, const std::filesystem::path& as_file) {
  ValidationReport report = validate_text(text, as_file.string() + " (in memory)");
  check_package(report, as_file);
  return report;
}

bool imports_genai_config(const std::filesystem::path& dir_or_file) {
  return importer::is_genai_config_file(dir_or_file) ||
         (importer::is_genai_folder(dir_or_file) && !has_metadata_file(dir_or_file));
}

bool imports_optimum_export(const std::filesystem::path& dir) {
  return !has_metadata_file(dir) && importer::is_optimum_folder(dir);
}

ValidationReport validate_package(const std::filesystem::path& dir_or_file, const ValidateOptions& options) {
  if (!options.optimum_dtype.empty() && !imports_optimum_export(dir_or_file))
    fail(ErrorCode::kInvalidArgument, dir_or_file.string(), "a dtype ({}) picks the graph of an Optimum / "
         "onnx-community folder imported in memory; this is {}", options.optimum_dtype,
         has_metadata_file(dir_or_file) ? "a package with its own inference_metadata" : "no such folder");
  std::filesystem::path file;
  ValidationReport report;
  if (imports_genai_config(dir_or_file)) {
    report = validate_imported(dir_or_file);
    file = *report.imported_from;
  } else if (imports_optimum_export(dir_or_file)) {
    report = validate_imported_optimum(dir_or_file, options.optimum_dtype);
    file = *report.imported_from;
  } else {
    file = find_metadata_file(dir_or_file);
    report = validate_text(read_file(file), file.string());
  }
  if (options.document_only) return report;
  check_package(report, file);
  return report;
}

Package load_package(const std::filesystem::path& dir_or_file, const ValidateOptions& options) {
  ValidationReport report = validate_package(dir_or_file, options);
  if (!report.valid())
    fail(ErrorCode::kInvalidPackage, dir_or_file.string(), "the package is invalid ({} problems):\n{}",
         report.diagnostics.size(), report.diagnostics.text());
  Diagnostics unrunnable;
  check_runnable(report.package->document, unrunnable);
  if (!unrunnable.empty())
    fail(ErrorCode::kInvalidPackage, dir_or_file.string(), "the package is a valid document that ogai cannot run "
         "({} problems):\n{}", unrunnable.size(), unrunnable.text());
  return std::move(*report.package);
}

}  // namespace ogai::metadata
