#include "importer/genai_sections.h"

#include <algorithm>
#include <cctype>

namespace ogai::importer {
namespace {

constexpr std::string_view kSlidingCache =
    "ORT GenAI then slides a window-sized KV cache (and the prompt) through the graph, as its fixed-shape "
    "(e.g. QNN) exports need; ogai keeps the whole history and never slides it";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

// One provider_options entry: {"<provider>": {option: value}}, kept for the runtime: it maps the
// options onto ONNX Runtime's on that provider and ignores them, with a line each, elsewhere.
void read_provider(const JsonReader& r, const Json& entry, const std::string& path, GenaiConfig& c) {
  for (const auto& [name, options] : r.object(entry, path).items()) {
    const std::string at = join_path(path, name);
    const std::string provider = lower(name);
    const auto& items = r.object(options, at);
    if (items.empty()) c.session.provider_options.push_back({provider, "", "", at});
    for (const auto& [option, v] : items.items()) {
      const std::string opt_path = join_path(at, option);
      c.session.provider_options.push_back({provider, option, r.string(v, opt_path), opt_path});
    }
  }
}

std::optional<int> optimization_level(const JsonReader& r, const Json& value, const std::string& path) {
  const std::string level = r.string(value, path);
  if (level == "ORT_DISABLE_ALL") return 0;
  if (level == "ORT_ENABLE_BASIC") return 1;
  if (level == "ORT_ENABLE_EXTENDED") return 2;
  if (level == "ORT_ENABLE_ALL") return 99;
  r.refuse(path, "'" + level + "' is not one of ORT_DISABLE_ALL, ORT_ENABLE_BASIC, ORT_ENABLE_EXTENDED, ORT_ENABLE_ALL");
}

}  // namespace

void read_session_options(const JsonReader& r, const Json& value, const std::string& path, GenaiConfig& c) {
  r.closed(r.object(value, path), path,
           {"log_id", "log_severity_level", "log_verbosity_level", "intra_op_num_threads", "inter_op_num_threads",
            "enable_cpu_mem_arena", "enable_mem_pattern", "graph_optimization_level", "provider_options",
            "enable_profiling", "session.use_device_allocator_for_initializers", "session.intra_op.allow_spinning",
            "session.inter_op.allow_spinning"},
           {{"custom_ops_library", "custom operator libraries are not loaded by ogai"}});
  SessionSettings& s = c.session;
  for (const auto& [key, v] : value.items()) {
    const std::string at = join_path(path, key);
    if (key == "intra_op_num_threads") s.intra_op_threads = r.integer(v, at);
    else if (key == "inter_op_num_threads") s.inter_op_threads = r.integer(v, at);
    else if (key == "enable_cpu_mem_arena") s.enable_cpu_mem_arena = r.boolean(v, at);
    else if (key == "enable_mem_pattern") s.enable_mem_pattern = r.boolean(v, at);
    else if (key == "graph_optimization_level") s.graph_optimization_level = optimization_level(r, v, at);
    else if (key == "enable_profiling") s.enable_profiling = !r.string(v, at).empty();
    else if (key.starts_with("session.")) s.config_entries.emplace_back(key, r.string(v, at));
    else if (key == "log_id") s.ignored.push_back(at + ": ORT's log id is ogai's own (" + r.string(v, at) + ")");
    else if (key == "log_severity_level" || key == "log_verbosity_level")
      s.ignored.push_back(at + " " + std::to_string(r.integer(v, at)) + ": ogai sets ONNX Runtime's logging itself");
  }
  if (!value.contains("provider_options")) return;
  const Json& providers = value["provider_options"];
  if (!providers.is_array()) r.wrong_type(path + ".provider_options", "a list", providers);
  for (std::size_t i = 0; i < providers.size(); ++i)
    read_provider(r, providers[i], path + ".provider_options[" + std::to_string(i) + "]", c);
}

void read_run_options(const JsonReader& r, const Json& value, const std::string& path, GenaiConfig& c) {
  r.closed(r.object(value, path), path, {"memory.enable_memory_arena_shrinkage"});
  for (const auto& [key, v] : value.items())
    c.session.ignored.push_back(join_path(path, key) + " '" + r.string(v, join_path(path, key)) +
                                "': ogai does not shrink ONNX Runtime's arenas between runs");
}

void read_decoder_inputs(const JsonReader& r, const Json& value, DecoderNames& names) {
  const std::string path = "model.decoder.inputs";
  constexpr std::string_view kDirect =
      "a decoder fed the encoder's hidden states directly (Marian) is not imported; encoder-decoder folders are "
      "imported in Whisper's form (cross-attention KV from the encoder)";
  // Names of inputs ogai never feeds: accepted as names; a graph input so named is refused later.
  r.closed(r.object(value, path), path,
           {"input_ids", "inputs_embeds", "attention_mask", "position_ids", "past_key_names", "past_value_names",
            "past_sequence_length", "current_sequence_length", "total_sequence_length", "past_key_values_length",
            "cache_indirection", "cumulative_sequence_lengths", "past_sequence_lengths", "block_table",
            "block_table_windowed", "attention_metadata", "past_conv_names", "rnn_states_prev", "hidden_states",
            "per_layer_inputs", "targets", "lstm_hidden_state", "lstm_cell_state", "targets_length", "past_names",
            "cross_past_key_names", "cross_past_value_names"},
           {{"encoder_hidden_states", kDirect}, {"encoder_attention_mask", kDirect}});
  r.read_string(value, path, "input_ids", names.input_ids);
  r.read_string(value, path, "inputs_embeds", names.inputs_embeds);
  r.read_string(value, path, "attention_mask", names.attention_mask);
  r.read_string(value, path, "position_ids", names.position_ids);
  r.read_string(value, path, "past_key_names", names.past_key);
  r.read_string(value, path, "past_value_names", names.past_value);
  r.read_string(value, path, "past_names", names.past_combined);
  r.read_string(value, path, "past_conv_names", names.past_conv);
  r.read_string(value, path, "cross_past_key_names", names.cross_past_key);
  r.read_string(value, path, "cross_past_value_names", names.cross_past_value);
  for (const auto& [key, v] : value.items()) r.string(v, join_path(path, key));
}

void read_decoder_outputs(const JsonReader& r, const Json& value, DecoderNames& names) {
  const std::string path = "model.decoder.outputs";
  r.closed(r.object(value, path), path,
           {"logits", "present_key_names", "present_value_names", "output_cross_qk_names", "rnn_states",
            "present_conv_names", "hidden_states", "outputs", "lstm_hidden_state", "lstm_cell_state", "outputs_length",
            "present_names"});
  r.read_string(value, path, "logits", names.logits);
  r.read_string(value, path, "present_key_names", names.present_key);
  r.read_string(value, path, "present_value_names", names.present_value);
  r.read_string(value, path, "hidden_states", names.hidden_states);
  r.read_string(value, path, "present_names", names.present_combined);
  r.read_string(value, path, "present_conv_names", names.present_conv);
  r.read_string(value, path, "output_cross_qk_names", names.output_cross_qk);
  for (const auto& [key, v] : value.items()) r.string(v, join_path(path, key));
}

SlidingWindow read_sliding_window(const JsonReader& r, const Json& value, GenaiConfig& c) {
  const std::string path = "model.decoder.sliding_window";
  r.closed(r.object(value, path), path,
           {"window_size", "pad_value", "alignment", "slide_key_value_cache", "slide_inputs", "layers", "cache_slack"});
  SlidingWindow w;
  if (!value.contains("window_size")) r.refuse(path + ".window_size", "missing: the window size is required");
  w.window_size = r.integer(value["window_size"], path + ".window_size");
  if (w.window_size < 1) r.refuse(path + ".window_size", "must be >= 1, got " + std::to_string(w.window_size));
  // Both default to true in ORT GenAI.
  for (const char* key : {"slide_key_value_cache", "slide_inputs"}) {
    bool slides = !value.contains(key) || r.boolean(value[key], join_path(path, key));
    if (slides)
      r.refuse(join_path(path, key), std::string(value.contains(key) ? "is true" : "is absent (default true)") +
                                         ": " + std::string(kSlidingCache));
  }
  for (const char* key : {"pad_value", "cache_slack"})
    if (value.contains(key)) r.integer(value[key], join_path(path, key));
  if (value.contains("alignment")) r.string(value["alignment"], path + ".alignment");
  if (value.contains("cache_slack"))
    c.notes.push_back(path + ".cache_slack: ogai keeps full-length caches (no slack to size)");
  if (value.contains("layers")) {
    const Json& layers = value["layers"];
    if (!layers.is_array()) r.wrong_type(path + ".layers", "a list of layer indices", layers);
    for (std::size_t i = 0; i < layers.size(); ++i)
      w.layers.push_back(r.integer(layers[i], path + ".layers[" + std::to_string(i) + "]"));
  }
  return w;
}

void read_search(const JsonReader& r, const Json& value, GenaiConfig& c) {
  const std::string path = "search";
  r.closed(r.object(value, path), path,
           {"do_sample", "temperature", "top_k", "top_p", "repetition_penalty", "max_length", "min_length", "num_beams",
            "num_return_sequences", "no_repeat_ngram_size", "length_penalty", "early_stopping", "diversity_penalty",
            "past_present_share_buffer", "batch_size", "random_seed", "chunk_size", "blank_penalty"});
  SearchDefaults& s = c.search;
  auto integer = [&](const char* key) { return r.optional_integer(value, path, key); };
  auto number = [&](const char* key) { return r.optional_number(value, path, key); };
  auto boolean = [&](const char* key) { return r.optional_boolean(value, path, key); };
  auto at_most = [&](const char* key, const std::optional<std::int64_t>& v, std::int64_t limit, std::string_view why) {
    if (v && *v > limit) r.refuse(join_path(path, key), std::to_string(*v) + ": " + std::string(why));
  };
  s.do_sample = boolean("do_sample");
  s.early_stopping = boolean("early_stopping");
  s.temperature = number("temperature");
  s.top_p = number("top_p");
  s.repetition_penalty = number("repetition_penalty");
  s.length_penalty = number("length_penalty");
  s.diversity_penalty = number("diversity_penalty");
  s.top_k = integer("top_k");
  s.num_beams = integer("num_beams");
  s.num_return_sequences = integer("num_return_sequences");
  s.min_length = integer("min_length");
  s.max_length = integer("max_length");
  s.no_repeat_ngram_size = integer("no_repeat_ngram_size");
  at_most("num_beams", s.num_beams, 1, "beam search is not implemented by ogai");
  at_most("num_return_sequences", s.num_return_sequences, 1, "ogai returns one sequence per request");
  at_most("no_repeat_ngram_size", s.no_repeat_ngram_size, 0, "n-gram blocking is not implemented by ogai");
  at_most("min_length", s.min_length, 0, "a minimum length (EOS suppressed until then) is not implemented by ogai");
  if (s.top_k && *s.top_k < 0) r.refuse("search.top_k", "must be >= 0, got " + std::to_string(*s.top_k));
  if (s.top_p && (*s.top_p <= 0 || *s.top_p > 1)) {
    c.notes.push_back("search.top_p " + value["top_p"].dump() + " disables top-p in ORT GenAI; not written");
    s.top_p.reset();
  }
  if (auto seed = integer("random_seed"); seed && *seed != -1)
    c.session.ignored.push_back("search.random_seed " + std::to_string(*seed) + ": no v1 field holds a default seed, "
                                "and ogai's sampler draws differently from ORT GenAI's anyway (pass --seed)");
  if (auto penalty = number("blank_penalty"); penalty && *penalty != 0)
    r.refuse("search.blank_penalty", "a CTC/transducer blank penalty does not apply to a decoder");
  if (auto share = boolean("past_present_share_buffer")) s.past_present_share_buffer = *share;
  if (auto chunk = integer("chunk_size"); chunk && *chunk > 0) s.chunk_size = chunk;
  if (value.contains("batch_size")) {
    integer("batch_size");
    c.notes.push_back("search.batch_size is not used by ogai (the batch comes from the requests)");
  }
}

void read_engine(const JsonReader& r, const Json& value, GenaiConfig& c) {
  r.closed(r.object(value, "engine"), "engine", {"static_batching", "dynamic_batching"});
  if (value.contains("static_batching")) {
    r.object(value["static_batching"], "engine.static_batching");
    c.notes.push_back("engine.static_batching: ogai serve takes --max-concurrent");
  }
  if (!value.contains("dynamic_batching")) return;
  const std::string path = "engine.dynamic_batching";
  r.closed(r.object(value["dynamic_batching"], path), path, {"block_size", "num_blocks", "max_batch_size", "gpu_utilization_factor"});
  for (const auto& [key, v] : value["dynamic_batching"].items()) {
    const std::string at = join_path(path, key);
    const std::string shown = key == "gpu_utilization_factor" ? std::to_string(r.number(v, at)) : std::to_string(r.integer(v, at));
    c.session.ignored.push_back(at + " " + shown + ": ogai's engine batches requests itself (continuous batching "
                                "over its own KV rows; `ogai serve --max-concurrent` bounds the batch)");
  }
}

}  // namespace ogai::importer
