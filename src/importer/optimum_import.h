// Importing a Hugging Face Optimum / onnx-community decoder export as a v1 inference_metadata
// document: the folder transformers.js and Optimum's ORTModelForCausalLM run.
//
// Layout read: config.json (the transformers config: model_type, hidden_size, num_attention_heads,
// num_key_value_heads, head_dim, num_hidden_layers, vocab_size, max_position_embeddings, token
// ids), generation_config.json (token ids beside it), tokenizer.json, and one decoder graph that
// takes past_key_values.N.key/value and returns logits and present.N.key/value (input_ids,
// attention_mask, position_ids when the graph has it): the single-graph model.onnx, Optimum's
// merged decoder_model_merged.onnx (its `use_cache_branch` flag declared for the runtime to feed:
// importer/cache_branch.h) or the split export's decoder_with_past_model.onnx (it prefills from an
// empty cache, so it runs alone), of the dtype transformers.js would load (`dtype` names one:
// fp32, fp16, q8, q4, ...; else config.json's transformers.js_config.dtype, else fp32;
// importer/optimum_variant.h). Weights in external data (model.onnx_data) stay where they are:
// only the graph's interface is read.
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
#include "importer/optimum_variant.h"

namespace ogai::importer {

inline constexpr const char* kHfConfigName = "config.json";

// The decoder graph of an Optimum folder for `dtype` (empty: the default) and its dtype, or
// nullopt when `dir` is no Optimum export (no config.json, a genai_config.json beside it, or no
// decoder graph of any dtype). Throws for a dtype the folder lacks (optimum_variant.h).
std::optional<OptimumGraph> optimum_decoder_graph(const std::filesystem::path& dir, const std::string& dtype = {});

// True when `dir` is an Optimum export: config.json, no genai_config.json, a decoder graph of some dtype.
bool is_optimum_folder(const std::filesystem::path& dir);

// Imports the folder (ImportResult::config_file is its config.json), running the graph of `dtype`
// (empty: the default).
ImportResult import_optimum_folder(const std::filesystem::path& dir, const std::string& dtype = {});

}  // namespace ogai::importer
