// Package layout (digest §1): finding the metadata file, resolving every package-relative path
// the document names so it stays inside the package, and discovering the tokenizer, chat template
// and EOS sources beside it.
//
// Artifacts resolve against the metadata file's directory and must canonicalize (symlinks
// followed) to a regular file inside it; `..`, absolute paths and symlink escapes are refused.
// Problems become `PKG` diagnostics naming the document path and the file. Reads small JSON side
// files (tokenizer_config.json, generation_config.json); never opens ONNX graphs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metadata/diagnostics.h"
#include "metadata/document.h"

namespace ogai::metadata {

// `inference_metadata.yaml`, then `.yml`, then `.json` in a directory; a file path is returned
// as is. Throws ogai::Error(kNotFound) naming the directory when none exists.
std::filesystem::path find_metadata_file(const std::filesystem::path& dir_or_file);
// True when find_metadata_file() would find a file (a file path counts as one).
bool has_metadata_file(const std::filesystem::path& dir_or_file);

// Where the engine finds the tokenizer, the chat template and the EOS facts (§1, §2.5).
struct TextSources {
  std::optional<std::filesystem::path> tokenizer_json;      // declared artifact or <root>/tokenizer.json
  std::optional<std::filesystem::path> chat_template_file;  // <root>/chat_template.jinja
  std::optional<std::string> chat_template;                 // tokenizer_config.json["chat_template"] (string form)
  std::optional<std::filesystem::path> tokenizer_config;    // <root>/tokenizer_config.json when present
  std::optional<std::filesystem::path> generation_config;   // <root>/generation_config.json when present
  std::vector<std::int64_t> generation_config_eos_ids;      // generation_config.json eos_token_id (int or list)
  // generation_config.json's sampling fields, as transformers reads them (absent = unset); the
  // engine uses them where the metadata's generation.defaults sets nothing.
  struct Sampling {
    std::optional<bool> do_sample;
    std::optional<double> temperature, top_p, min_p, typical_p, repetition_penalty;
    std::optional<std::int64_t> top_k;
  } generation_config_sampling;
  std::optional<std::string> tokenizer_config_eos_token;    // tokenizer_config.json eos_token (string or {content})
  std::optional<std::int64_t> special_tokens_eos_id;        // package.tokenizer.special_tokens.eos.id
};

struct PackageFiles {
  std::filesystem::path root;           // canonical directory of the metadata file
  std::filesystem::path metadata_file;
  std::map<std::string, std::filesystem::path> component_artifacts;  // ONNX components -> graph file
  TextSources text;
};

// Resolves `relative` (as written at `doc_path`) inside `root`. Returns the canonical path, or
// nullopt after adding a PKG diagnostic.
std::optional<std::filesystem::path> resolve_in_package(const std::filesystem::path& root, const std::string& relative,
                                                        const std::string& doc_path, Diagnostics& diags);

// Checks every path the document names (ONNX and adapter artifacts, `source: artifact` inputs,
// adapter weights, a mapped speculative vocabulary, tokenizer artifacts) and discovers the text
// sources. `metadata_file` must exist.
PackageFiles resolve_package_files(const Document& doc, const std::filesystem::path& metadata_file, Diagnostics& diags);

}  // namespace ogai::metadata
