// The models `ogai serve PKG PKG...` and `ogai serve --models-dir DIR` serve, and their ids:
// each package is served under its folder's name (a path to a metadata file: its folder's name).
// Under --models-dir, every folder directly inside DIR (symbolic links followed; names starting
// with "." skipped) that ogai can load is a package: one with inference_metadata.{yaml,yml,json},
// an ONNX Runtime GenAI folder (genai_config.json) or an Optimum / onnx-community export (both
// imported in memory at load, as `ogai generate` does). Other entries are skipped and named on
// stderr. Each model's size for --models-memory-mb is its files' total (serve/router/model_loader.h).
// Throws ogai::Error: kNotFound (DIR missing, or holding no package), kInvalidArgument (two models
// with one id). Thread-compatible.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "serve/router/model_registry.h"

namespace ogai::cli {

std::string model_id(const std::filesystem::path& package);
// The package folders directly inside `dir`, sorted by name.
std::vector<std::filesystem::path> packages_in(const std::filesystem::path& dir);
// `packages` (in order), then those of `models_dir` (when not empty), with their ids and sizes.
std::vector<serve::router::ModelSpec> model_specs(const std::vector<std::string>& packages,
                                                  const std::string& models_dir);

}  // namespace ogai::cli
