// Importing a Hugging Face Optimum / onnx-community decoder export as a v1 inference_metadata
// document: the folder transformers.js and Optimum's ORTModelForCausalLM run.
//
// Layout read: config.json (the transformers config: model_type, hidden_size, num_attention_heads,
// num_key_value_heads, head_dim, num_hidden_layers, vocab_size, max_position_embeddings, token
// ids), generation_config.json (token ids beside it), tokenizer.json, and one decoder graph that
// takes past_key_values.N.key/value and returns logits and present.N.key/value (input_ids,
// attention_mask, position_ids when the graph has it), in this order of preference:
//   onnx/model.onnx, model.onnx                      (the current single-graph export)
//   onnx/decoder_with_past_model.onnx, ...           (the split export: the with-past graph prefills
//                                                     from an empty cache, so it runs alone)
//   onnx/model_fp16.onnx, model_quantized.onnx, model_int8.onnx, model_uint8.onnx, model_q4.onnx,
//   model_q4f16.onnx, model_bnb4.onnx                 (transformers.js's dtype variants, when no fp32)
// Weights in external data (model.onnx_data) stay where they are: only the graph's interface is read.
// A merged decoder (decoder_model_merged.onnx: a `use_cache_branch` flag choosing between two
// subgraphs) is refused by name with the export that runs, since ogai's decode loop feeds no flag.
//
// The config's facts become a GenaiConfig (genai_config.h), so the ports are bound and
// cross-checked (decoder_ports.h: heads, head size, layers against the graph) and the document is
// written (document_writer.h) exactly as for an ONNX Runtime GenAI folder. Stop ids: generation_
// config.json eos_token_id (one or a list), else config.json's.
// Throws ogai::Error: kNotFound (no config.json or graph), kParse (malformed files),
// kUnsupported (a refusal naming the file and field). Thread safety: pure functions.
#pragma once

#include <filesystem>
#include <optional>

#include "importer/import.h"

namespace ogai::importer {

inline constexpr const char* kHfConfigName = "config.json";

// The decoder graph of an Optimum folder, relative to it ("onnx/model.onnx"), or nullopt when
// `dir` is no Optimum export (no config.json, a genai_config.json beside it, or no decoder graph).
std::optional<std::filesystem::path> optimum_decoder_graph(const std::filesystem::path& dir);

// True when optimum_decoder_graph(dir) finds one.
bool is_optimum_folder(const std::filesystem::path& dir);

// Imports the folder (ImportResult::config_file is its config.json).
ImportResult import_optimum_folder(const std::filesystem::path& dir);

}  // namespace ogai::importer
