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
// A folder without tokenizer.json (ORT GenAI's test models) imports without `package.tokenizer`;
// it runs from token ids. EOS: see ImportedFacts; a v1 document holds one EOS id, so the written
// document's header names the others.
// Throws ogai::Error: kNotFound (no genai_config.json or graph), kParse (malformed
// files), kUnsupported (a refusal: where() is the file, the message starts with the field path).
// Cost: a JSON parse, the graph's interface walk (weights skipped) and the tokenizer's vocabulary.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "importer/genai_config.h"

namespace ogai::importer {

inline constexpr const char* kGenaiConfigName = "genai_config.json";

// What the folder says beyond the v1 document, for a runtime that imports it in memory: the stop
// set as ORT GenAI stops (model.eos_token_id, one id or a list, whatever tokenizer_config.json or
// generation_config.json say), the decoder's session settings (mapped per provider at load), and
// lines to say once on stderr (a side file that disagrees with the config, options with no effect).
struct ImportedFacts {
  std::vector<std::int64_t> eos_ids;
  std::optional<std::int64_t> bos_id, pad_id;
  SessionSettings session;
  std::vector<std::string> warnings;
  bool has_tokenizer = true;  // tokenizer.json beside the graph (without one, prompts are token ids)
};

struct ImportResult {
  std::string document;                // the inference_metadata.yaml text
  std::filesystem::path config_file;   // the genai_config.json it came from
  ImportedFacts facts;
};

// True when `dir` is a directory holding genai_config.json.
bool is_genai_folder(const std::filesystem::path& dir);

// True when `path` is a genai_config.json file (its folder is the one to import).
bool is_genai_config_file(const std::filesystem::path& path);

// `dir` is the folder, or its genai_config.json.
ImportResult import_genai_folder(const std::filesystem::path& dir);

}  // namespace ogai::importer
