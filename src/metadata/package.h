// Loading a package: the one entry point the rest of ogai uses to read inference_metadata.
//
// validate_package() runs the whole load order of digest §3.1: find the metadata file, parse it
// strictly, run every document rule (validate.h), resolve and confine the package files
// (package_files.h), admit the ONNX graphs (admission.h, weights never read) and derive the flat
// decoder ABI (decoder_abi.h). It collects every problem as a Diagnostic. load_package() is the
// same but throws when anything is wrong, so an engine never runs a package that failed a check.
//
// Thread safety: free functions without shared state; a Package is an immutable value.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "importer/import.h"
#include "metadata/decoder_abi.h"
#include "metadata/diagnostics.h"
#include "metadata/document.h"
#include "metadata/package_files.h"
#include "onnx/graph_info.h"

namespace ogai::metadata {

struct ValidateOptions {
  bool document_only = false;  // skip package files and graphs (documents whose artifacts are absent)
  // An Optimum / onnx-community folder imported in memory: which transformers.js dtype's graph
  // runs (fp32, fp16, q8, q4, ...; empty: the folder's default, importer/optimum_variant.h).
  // Set for any other package it is refused (kInvalidArgument): nothing else has dtype variants.
  std::string optimum_dtype;
};

struct Package {
  PackageFiles files;  // root, metadata file, component artifacts, tokenizer/template/EOS sources
  Document document;   // the typed document: generation, speculative, package facts, workflow, ...
  std::map<std::string, onnx::GraphInfo> graphs;  // component -> admitted graph (empty: document-only)
  std::optional<DecoderAbi> decoder;              // the sole decoder's flat ABI, when there is one
  // An imported GenAI folder's facts beyond the document (importer/import.h): its stop set
  // (which then replaces files.text's EOS sources), session settings and token-id-only status.
  std::optional<importer::ImportedFacts> imported;

  std::optional<std::int64_t> max_sequence_length() const;  // model.max_sequence_length
  std::optional<std::int64_t> sliding_window() const;       // model.attention.sliding_window
};

struct ValidationReport {
  Diagnostics diagnostics;
  std::optional<Package> package;  // set once the text parsed (even when diagnostics follow)
  std::optional<std::filesystem::path> imported_from;  // genai_config.json, when the document was imported
  bool valid() const { return diagnostics.empty(); }
};

// True when `dir_or_file` is a directory with an ONNX Runtime GenAI genai_config.json and no
// inference_metadata.{yaml,yml,json}: validate_package() then imports the config in memory
// (importer/import.h) and says so once on stderr (a warn-level log line). A folder with both
// uses its metadata; the config is never merged. A path to a genai_config.json file imports its
// folder whatever else the folder holds.
bool imports_genai_config(const std::filesystem::path& dir_or_file);

// True when `dir` is a Hugging Face Optimum / onnx-community export (config.json beside a decoder
// graph such as onnx/model.onnx; importer/optimum_import.h) with no inference_metadata and no
// genai_config.json: validate_package() then imports it in memory and says so once on stderr.
bool imports_optimum_export(const std::filesystem::path& dir);

// Throws ogai::Error: kNotFound when no metadata file exists, kParse when its text is unreadable
// (not UTF-8, malformed YAML/JSON, duplicate keys, over the size limits), kUnsupported when an
// imported genai_config.json is refused (importer/import.h). Every other problem is a diagnostic
// in the report.
ValidationReport validate_package(const std::filesystem::path& dir_or_file, const ValidateOptions& options = {});

// Document-only validation of metadata text (`origin` names it; `.json` selects JSON).
ValidationReport validate_text(std::string_view text, const std::string& origin);

// The whole validation of document `text` (YAML) as if it were the metadata file `as_file`, which
// must exist: its artifacts and side files resolve against as_file's directory. `ogai import`
// checks the document it writes with this before printing it.
ValidationReport validate_package_text(std::string_view text, const std::filesystem::path& as_file);

// validate_package(), then throws ogai::Error(kInvalidPackage) whose message lists every
// diagnostic (`RULE path: message` lines) when the package is not valid.
Package load_package(const std::filesystem::path& dir_or_file, const ValidateOptions& options = {});

}  // namespace ogai::metadata
