// Test support for the importer: ONNX Runtime GenAI folders assembled in the build directory from
// the project's genai_config.json files (tests/data/genai/) and graphs the tests already have.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace ogai::importer::testing {

// build/importer_folders/<source>: a folder tools/genai/builder_llama.py wrote (CTest fixture).
std::filesystem::path generated_dir(const std::string& source);

// tests/data/genai/<source>/genai_config.json (builder-llama*: the generated folder's).
nlohmann::json base_config(const std::string& source);

// A fresh folder build/importer_folders/<name> holding the graph and tokenizer files of `source`
// ("stories260k": ../shared/models/stories260k with tests/data/stories260k's side files;
// "tiny-e2b" / "tiny-e2b-fp16": tests/data/packages/<source> without its metadata, the float16 one
// with its external data; both use tests/data/genai/tiny-e2b's config; "builder-llama" and
// "builder-llama-mha": the folders tools/genai/builder_llama.py wrote into
// build/importer_folders/ (CTest fixture `importer_builder_folder`)) and `config` as
// genai_config.json.
std::filesystem::path make_folder(const std::string& name, const std::string& source, const nlohmann::json& config);

// make_folder() with base_config(source) after `edit`.
std::filesystem::path make_folder(const std::string& name, const std::string& source,
                                  const std::function<void(nlohmann::json&)>& edit = {});

}  // namespace ogai::importer::testing
