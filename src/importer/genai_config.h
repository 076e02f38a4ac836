// Reading an ONNX Runtime GenAI `genai_config.json`, fail-closed.
//
// read_genai_config() turns the file into a GenaiConfig holding only what the importer can map
// onto a v1 document: the decoder graph's file name and port-name templates, the attention facts
// (head size, KV heads, layers, sliding window), token ids, context length and search defaults.
// Every key is looked up in closed tables: a key the importer does not know, or a known key whose
// value ogai cannot run faithfully (encoder-decoder or multimodal components, decoder pipelines,
// beam search, window-sliding KV caches, execution-provider options it does not understand, ...)
// throws ogai::Error(kUnsupported) whose where() is the file and whose message starts with the
// field's JSON path (`model.decoder.pipeline: ...`). Malformed JSON or a wrongly typed value is
// kParse. Nothing is guessed: absent fields stay unset.
//
// Cost: one small JSON parse. Thread safety: a pure function; GenaiConfig is a plain value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ogai::importer {

// model.decoder.sliding_window (only the layout ogai can run: no KV or input sliding).
struct SlidingWindow {
  std::int64_t window_size = 0;
  std::vector<std::int64_t> layers;  // KV layer indices using the window; empty = every layer
};

// Graph names the config gives the decoder's ports; `%d` stands for the KV layer index.
struct DecoderNames {
  std::string input_ids = "input_ids";
  std::string inputs_embeds = "inputs_embeds";
  std::string attention_mask = "attention_mask";
  std::string position_ids = "position_ids";
  std::string past_key = "past_key_values.%d.key";
  std::string past_value = "past_key_values.%d.value";
  std::string logits = "logits";
  std::string present_key = "present.%d.key";
  std::string present_value = "present.%d.value";
  std::string hidden_states;  // the last hidden state output, when the export has one (empty: none)
};

// The `search` section as generation defaults (fields absent in the file stay unset).
struct SearchDefaults {
  std::optional<bool> do_sample, early_stopping;
  std::optional<double> temperature, top_p, repetition_penalty, length_penalty, diversity_penalty;
  std::optional<std::int64_t> top_k, num_beams, num_return_sequences, min_length, max_length, no_repeat_ngram_size;
  bool past_present_share_buffer = false;
  std::optional<std::int64_t> chunk_size;  // prefill chunk size, when > 0
};

struct GenaiConfig {
  std::filesystem::path file;  // the genai_config.json read
  std::string type;            // model.type (a decoder-only LLM type)
  std::optional<std::int64_t> vocab_size, context_length, bos_token_id, pad_token_id;
  std::vector<std::int64_t> eos_token_ids;  // model.eos_token_id (int or list)
  std::string decoder_filename;             // model.decoder.filename, relative to the folder
  std::optional<std::int64_t> head_size, num_key_value_heads, num_attention_heads, hidden_size, num_hidden_layers;
  DecoderNames names;
  std::optional<SlidingWindow> sliding_window;
  SearchDefaults search;
  std::vector<std::string> notes;  // accepted fields that have no effect on ogai (for the document's header)
};

// Reads and checks `path` (a genai_config.json). Throws ogai::Error as described above.
GenaiConfig read_genai_config(const std::filesystem::path& path);

// Same, for text already in memory; `origin` names it in errors.
GenaiConfig parse_genai_config(const std::string& text, const std::filesystem::path& origin);

}  // namespace ogai::importer
