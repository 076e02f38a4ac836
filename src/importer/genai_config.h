// Reading an ONNX Runtime GenAI `genai_config.json`, fail-closed.
//
// read_genai_config() turns the file into a GenaiConfig holding only what the importer can map
// onto a v1 document: the decoder graph's file name and port-name templates, the attention facts
// (head size, KV heads, layers, sliding window), token ids, context length and search defaults,
// and for the multimodal types (gemma4, phi3v, qwen2_5_vl, qwen3_vl) the vision, speech and
// embedding sessions (genai_multimodal.cc).
// Every key is looked up in closed tables: a key the importer does not know, or a known key whose
// value ogai cannot run faithfully (encoder-decoder components, decoder pipelines,
// beam search, window-sliding KV caches, custom operator libraries, ...)
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
#include <utility>
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
  // GPT-2's combined caches, one tensor [2, batch, heads, sequence, head_size] per layer holding
  // key and value (inputs.past_names / outputs.present_names; empty: separate key and value).
  std::string past_combined, present_combined;
  // LFM2's convolution state, [batch, channels, conv_cache_size] per conv layer, replaced each
  // step (inputs.past_conv_names / outputs.present_conv_names; empty: none).
  std::string past_conv, present_conv;
  // Encoder-decoder (Whisper) decoders: the cross-attention KV the encoder produced, read each step
  // (inputs.cross_past_key_names / cross_past_value_names), and the cross-attention weights output
  // (outputs.output_cross_qk_names); empty: none.
  std::string cross_past_key, cross_past_value, output_cross_qk;
};

// model.encoder of an encoder-decoder folder (Whisper): the encoder graph and its port names.
struct EncoderSection {
  std::string filename;
  std::string audio_features = "audio_features";              // inputs.audio_features
  std::string hidden_states = "encoder_hidden_states";        // outputs.encoder_hidden_states
  std::string cross_present_key = "present_key_cross_%d";     // outputs.cross_present_key_names
  std::string cross_present_value = "present_value_cross_%d"; // outputs.cross_present_value_names
  std::optional<std::int64_t> head_size, num_attention_heads, num_hidden_layers, hidden_size;
};

// The `search` section as generation defaults (fields absent in the file stay unset).
struct SearchDefaults {
  std::optional<bool> do_sample, early_stopping;
  std::optional<double> temperature, top_p, repetition_penalty, length_penalty, diversity_penalty;
  std::optional<std::int64_t> top_k, num_beams, num_return_sequences, min_length, max_length, no_repeat_ngram_size;
  bool past_present_share_buffer = false;
  std::optional<std::int64_t> chunk_size;  // prefill chunk size, when > 0
};

// ORT GenAI's session settings for the decoder (model.decoder.session_options / run_options),
// for the runtime to map onto ONNX Runtime's own on the provider it runs (generate/
// session_settings.h), which names on stderr each one it ignores.
struct ProviderOption {
  std::string provider;  // lower-cased provider name: cuda, cpu, dml, qnn, webgpu, ...
  std::string key, value;  // one option (both empty for a provider listed without options)
  std::string path;        // its JSON path, for messages
};

struct SessionSettings {
  std::vector<ProviderOption> provider_options;  // in file order
  std::vector<std::pair<std::string, std::string>> config_entries;  // "session.*": ORT session config entries
  std::optional<std::int64_t> intra_op_threads, inter_op_threads;
  std::optional<int> graph_optimization_level;  // 0 disable, 1 basic, 2 extended, 99 all (ORT's values)
  std::optional<bool> enable_cpu_mem_arena, enable_mem_pattern, enable_profiling;
  std::vector<std::string> ignored;  // "path: why" for options that have no effect on ogai anywhere
};

// A session of a multimodal pipeline (model.vision, model.speech, model.embedding): its graph and
// the config's graph names for its ports, keyed by ORT GenAI's field names (pixel_values,
// image_features, ...), ORT GenAI's defaults included for fields the file does not write.
struct SessionSection {
  std::string path;             // "model.vision", for messages
  std::string filename;         // the graph, relative to the folder
  std::string config_filename;  // vision / speech: the processor config (ORT GenAI's default when absent)
  std::vector<std::pair<std::string, std::string>> inputs, outputs;  // field -> graph name
  // The graph name of field `key` (empty when the section has no such field).
  std::string input(const std::string& key) const;
  std::string output(const std::string& key) const;
};

struct MultimodalSections {
  std::optional<SessionSection> vision, speech, embedding;
  bool any() const { return vision || speech || embedding; }
};

struct GenaiConfig {
  std::filesystem::path file;  // the genai_config.json read
  std::string type;            // model.type (a decoder-only LLM type, a multimodal one: gemma4, phi3v, ..., or whisper)
  std::optional<std::int64_t> vocab_size, context_length, bos_token_id, pad_token_id;
  std::vector<std::int64_t> eos_token_ids;  // model.eos_token_id (int or list)
  std::string decoder_filename;             // model.decoder.filename, relative to the folder
  std::optional<std::int64_t> head_size, num_key_value_heads, num_attention_heads, hidden_size, num_hidden_layers;
  DecoderNames names;
  std::optional<SlidingWindow> sliding_window;
  // model.decoder.layer_types: full_attention or conv per layer (empty: every layer attends).
  std::vector<std::string> layer_types;
  std::optional<std::int64_t> conv_cache_size;  // model.decoder.conv_cache_size (LFM2)
  SearchDefaults search;
  SessionSettings session;
  std::optional<EncoderSection> encoder;  // encoder-decoder types (whisper) only
  std::optional<std::int64_t> decoder_start_token_id;
  // A multimodal pipeline's other sessions (multimodal types only; the decoder then reads
  // inputs_embeds from the embedding session).
  MultimodalSections multimodal;
  std::vector<std::string> notes;  // accepted fields that have no effect on ogai (for the document's header)
};

// Reads and checks `path` (a genai_config.json). Throws ogai::Error as described above.
GenaiConfig read_genai_config(const std::filesystem::path& path);

// Same, for text already in memory; `origin` names it in errors.
GenaiConfig parse_genai_config(const std::string& text, const std::filesystem::path& origin);

}  // namespace ogai::importer
