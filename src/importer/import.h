// Importing an ONNX Runtime GenAI model folder as a v1 inference_metadata document.
//
// A GenAI folder holds genai_config.json beside the decoder graph it names (model.onnx, with
// model.onnx.data), tokenizer.json and tokenizer_config.json. import_genai_folder() reads the
// config fail-closed (genai_config.h), reads the graph's interface without its weights
// (onnx/graph_info.h), binds and cross-checks the ports (decoder_ports.h) and writes the document
// ogai's metadata stage parses and validates: the `decoder` component with its ports by role, one
// state-service group per attention kind (full_attention, and sliding_attention for the layers of
// a declared sliding window) over the per-layer past/present ports with the graph's shapes,
// `model` facts (context length, vocabulary, attention heads, window), the tokenizer's special
// tokens (BOS/EOS/pad) and `search` as generation.defaults. What it cannot represent faithfully
// is refused by name; docs/metadata.md lists the mapping and the refusals.
//
// One-way: the importer never reads inference_metadata.yaml, and a folder that has one is the
// metadata stage's to load (metadata/package.h calls the importer only when it is absent).
// Throws ogai::Error: kNotFound (no genai_config.json, graph or tokenizer.json), kParse (malformed
// files), kUnsupported (a refusal: where() is the file, the message starts with the field path).
// Cost: a JSON parse, the graph's interface walk (weights skipped) and the tokenizer's vocabulary.
// Thread safety: pure functions.
#pragma once

#include <filesystem>
#include <string>

namespace ogai::importer {

inline constexpr const char* kGenaiConfigName = "genai_config.json";

struct ImportResult {
  std::string document;                // the inference_metadata.yaml text
  std::filesystem::path config_file;   // the genai_config.json it came from
};

// True when `dir` is a directory holding genai_config.json.
bool is_genai_folder(const std::filesystem::path& dir);

// True when `path` is a genai_config.json file (its folder is the one to import).
bool is_genai_config_file(const std::filesystem::path& path);

// `dir` is the folder, or its genai_config.json.
ImportResult import_genai_folder(const std::filesystem::path& dir);

}  // namespace ogai::importer
