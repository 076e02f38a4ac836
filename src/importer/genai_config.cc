// genai_config.json -> GenaiConfig: the top level, `model` and `model.decoder`. The session
// options and `search` are read in genai_sections.cc.
#include "importer/genai_config.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "base/file.h"
#include "importer/genai_encoder.h"
#include "importer/genai_sections.h"
#include "importer/json_reader.h"

namespace ogai::importer {
namespace {

// As metadata::kMaxSequenceLength: int32 positions (a context of 10^12 once imported; issue 37).
constexpr std::int64_t kMaxContextLength = 2147483647;

// Decoder-only language-model types of ORT GenAI whose decoder is one graph fed by token ids.
// What the graph itself needs is checked port by port afterwards (decoder_ports.h).
constexpr std::array<std::string_view, 24> kDecoderTypes = {
    "chatglm", "decoder", "ernie4_5", "gemma", "gemma2", "gemma3_text", "gemma4_text", "gpt2",
    "gptoss", "granite", "hunyuandensev1", "internlm2", "lfm2", "llama", "mistral", "nemotron", "olmo",
    "phi", "phimoe", "phi3", "phi3small", "qwen2", "qwen3", "smollm3"};

struct RefusedType {
  std::string_view type, why;
};
constexpr std::array<RefusedType, 18> kRefusedTypes = {{
    {"granitemoehybrid", "a hybrid of attention and state-space layers"},
    {"qwen3_5_text", "a hybrid of attention and linear-attention layers with recurrent state"},
    {"qwen3_5_moe_text", "a hybrid of attention and linear-attention layers with recurrent state"},
    {"decoder-pipeline", "a decoder split into several sessions (model.decoder.pipeline)"},
    {"marian-ssru", "an encoder-decoder translation model whose decoder carries SSRU recurrent state, reads the "
                    "encoder's hidden states with a batch-wide past_key_values_length and returns logits [batch, vocab] "
                    "(encoder-decoder folders are imported in Whisper's form: cross-attention KV from the encoder)"},
    {"marian", "an encoder-decoder translation model (encoder-decoder folders are imported in Whisper's form only)"},
    {"nemotron_speech", "a speech transducer"},
    {"parakeet_tdt", "a speech transducer"},
    {"gemma3", "a vision-language model (vision and embedding sessions)"},
    {"phi4mm", "a multimodal model (vision, speech and embedding sessions)"},
    {"fara", "a vision-language model (vision and embedding sessions)"},
    {"mistral3", "a vision-language model (vision and embedding sessions)"},
    {"qwen3_5", "a vision-language model whose text decoder is a hybrid of attention and linear-attention layers "
                "with recurrent state"},
    {"qwen3_5_moe", "a vision-language model (vision and embedding sessions)"},
    {"videochat_flash_qwen", "a video-language model (vision and embedding sessions)"},
    {"silero_vad", "a voice-activity detector"},
    {"encoder", "an encoder-only model"},
    {"t5", "an encoder-decoder model"},
}};

// The encoder-decoder type the importer maps (genai_encoder.h): an encoder whose cross-attention
// KV the decoder reads.
constexpr std::string_view kEncoderDecoderType = "whisper";

// Multimodal pipelines the importer maps: vision (and speech) sessions and an embedding session
// feeding the decoder's inputs_embeds (genai_multimodal.cc, multimodal_ports.h). What each
// graph takes is checked port by port.
constexpr std::array<std::string_view, 4> kMultimodalTypes = {"gemma4", "phi3v", "qwen2_5_vl", "qwen3_vl"};

bool is_multimodal(const std::string& type) {
  return std::find(kMultimodalTypes.begin(), kMultimodalTypes.end(), type) != kMultimodalTypes.end();
}

constexpr std::string_view kMediaIds[] = {"image_token_id", "audio_token_id", "boa_token_id", "video_token_id",
                                          "vision_start_token_id"};

void check_type(const JsonReader& r, const std::string& type) {
  if (std::find(kDecoderTypes.begin(), kDecoderTypes.end(), type) != kDecoderTypes.end() || is_multimodal(type)) return;
  if (type == kEncoderDecoderType) return;
  for (const auto& refused : kRefusedTypes)
    if (type == refused.type)
      r.refuse("model.type", "'" + type + "' is " + std::string(refused.why) +
                                 "; the importer maps single-graph decoder-only language models and the multimodal types "
                                 "gemma4, phi3v, qwen2_5_vl and qwen3_vl");
  r.refuse("model.type", "'" + type + "' is not a decoder-only model type the importer knows");
}

std::vector<std::int64_t> eos_ids(const JsonReader& r, const Json& value) {
  std::vector<std::int64_t> ids;
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      ids.push_back(r.integer(value[i], "model.eos_token_id[" + std::to_string(i) + "]"));
    if (ids.empty()) r.wrong_type("model.eos_token_id", "an integer or a non-empty list", value);
  } else {
    ids.push_back(r.integer(value, "model.eos_token_id"));
  }
  return ids;
}

std::vector<std::string> read_layer_types(const JsonReader& r, const Json& value) {
  if (!value.is_array()) r.wrong_type("model.decoder.layer_types", "a list of strings", value);
  std::vector<std::string> kinds;
  for (std::size_t i = 0; i < value.size(); ++i) {
    std::string path = "model.decoder.layer_types[" + std::to_string(i) + "]";
    std::string kind = r.string(value[i], path);
    if (kind != "full_attention" && kind != "conv")
      r.refuse(path, "'" + kind + "' layers are not imported (only full_attention and conv layers; "
                     "sliding layers are declared by model.decoder.sliding_window)");
    kinds.push_back(std::move(kind));
  }
  return kinds;
}

void read_decoder(const JsonReader& r, const Json& value, GenaiConfig& c) {
  const std::string path = "model.decoder";
  r.closed(r.object(value, path), path,
           {"filename", "session_options", "run_options", "hidden_size", "num_attention_heads", "num_key_value_heads",
            "num_hidden_layers", "head_size", "inputs", "outputs", "sliding_window", "layer_types", "conv_cache_size"},
           {{"pipeline", "a decoder split into several sessions is not imported (ogai runs one decoder graph)"},
            {"shared_initializers", "initializers shared between sessions are not imported"}});
  if (!value.contains("filename")) r.refuse(path + ".filename", "missing: the decoder graph's file name is required");
  c.decoder_filename = r.string(value["filename"], path + ".filename");
  auto opt_int = [&](const char* key) { return r.optional_integer(value, path, key); };
  c.hidden_size = opt_int("hidden_size");
  c.num_attention_heads = opt_int("num_attention_heads");
  c.num_key_value_heads = opt_int("num_key_value_heads");
  c.num_hidden_layers = opt_int("num_hidden_layers");
  c.head_size = opt_int("head_size");
  if (value.contains("session_options")) read_session_options(r, value["session_options"], path + ".session_options", c);
  if (value.contains("run_options")) read_run_options(r, value["run_options"], path + ".run_options", c);
  if (value.contains("inputs")) read_decoder_inputs(r, value["inputs"], c.names);
  if (value.contains("outputs")) read_decoder_outputs(r, value["outputs"], c.names);
  if (value.contains("sliding_window")) c.sliding_window = read_sliding_window(r, value["sliding_window"], c);
  if (value.contains("layer_types")) c.layer_types = read_layer_types(r, value["layer_types"]);
  c.conv_cache_size = opt_int("conv_cache_size");
}

// Multimodal sections and token ids: required / accepted on the multimodal types, refused by name
// on the others (as before).
void check_multimodal(const JsonReader& r, const Json& value, GenaiConfig& c) {
  if (!is_multimodal(c.type)) {
    constexpr std::pair<const char*, const char*> kSections[] = {
        {"vision", "vision components belong to the multimodal model types (gemma4, phi3v, qwen2_5_vl, qwen3_vl)"},
        {"speech", "speech components belong to the multimodal model types (gemma4)"},
        {"embedding", "a separate embedding session belongs to the multimodal model types (gemma4, phi3v, "
                      "qwen2_5_vl, qwen3_vl)"}};
    for (const auto& [key, why] : kSections)
      if (value.contains(key)) r.refuse(std::string("model.") + key, std::string(why) + "; '" + c.type + "' is not one");
    for (std::string_view key : kMediaIds)
      if (value.contains(key))
        r.refuse("model." + std::string(key), "a multimodal token id; '" + c.type + "' is not a multimodal model type");
    return;
  }
  const std::string kind = c.type == "gemma4" ? "a multimodal model" : "a vision-language model";
  if (!value.contains("embedding"))
    r.refuse("model.embedding", "missing: model.type '" + c.type + "' is " + kind + " whose decoder reads "
                                "inputs_embeds from an embedding session");
  if (!value.contains("vision"))
    r.refuse("model.vision", "missing: model.type '" + c.type + "' is " + kind + " with a vision session");
  if (value.contains("speech") && c.type != "gemma4")
    r.refuse("model.speech", "'" + c.type + "' has no speech session in ORT GenAI (only gemma4 and phi4mm)");
  read_multimodal(r, value, c);
  for (std::string_view key : kMediaIds)
    if (value.contains(key)) {
      const std::string path = "model." + std::string(key);
      c.notes.push_back(path + " " + std::to_string(r.integer(value[key], path)) +
                        " (the embedding graph places the features at its own placeholder ids)");
    }
}

void read_model(const JsonReader& r, const Json& value, GenaiConfig& c) {
  r.closed(r.object(value, "model"), "model",
           {"type", "vocab_size", "context_length", "pad_token_id", "eos_token_id", "bos_token_id", "decoder",
            "sep_token_id", "bot_token_id", "eot_token_id", "bor_token_id", "eor_token_id", "vision", "speech",
            "embedding", "image_token_id", "audio_token_id", "boa_token_id", "video_token_id", "vision_start_token_id",
            "encoder", "decoder_start_token_id"},
           {
            {"joiner", "speech transducer components are not imported"},
            {"vad", "voice-activity-detection components are not imported"},
            {"mtp", "multi-token-prediction heads are not imported"},
            {"draft", "draft-model speculative decoding is not imported (it has no single-decoder v1 form here)"},
            {"tokenizer_dir", "a tokenizer in another folder is not imported: ogai reads tokenizer.json beside the graph"}});
  if (!value.contains("type")) r.refuse("model.type", "missing: the model type is required");
  c.type = r.string(value["type"], "model.type");
  check_type(r, c.type);
  check_multimodal(r, value, c);
  if (!value.contains("decoder")) r.refuse("model.decoder", "missing: the decoder section is required");
  auto opt_int = [&](const char* key) { return r.optional_integer(value, "model", key); };
  c.vocab_size = opt_int("vocab_size");
  c.context_length = opt_int("context_length");
  if (c.context_length && *c.context_length <= 0)
    r.refuse("model.context_length", "must be > 0, got " + std::to_string(*c.context_length));
  if (c.context_length && *c.context_length > kMaxContextLength)
    r.refuse("model.context_length", std::to_string(*c.context_length) + " is above the largest context ogai runs (" +
                                         std::to_string(kMaxContextLength) + ", int32 positions)");
  c.bos_token_id = opt_int("bos_token_id");
  c.pad_token_id = opt_int("pad_token_id");
  if (value.contains("eos_token_id")) c.eos_token_ids = eos_ids(r, value["eos_token_id"]);
  for (const char* key : {"sep_token_id", "bot_token_id", "eot_token_id", "bor_token_id", "eor_token_id"})
    if (value.contains(key)) {
      opt_int(key);
      c.notes.push_back(std::string("model.") + key + " is not used by ogai (no v1 field)");
    }
  read_decoder(r, value["decoder"], c);
  read_encoder_section(r, value, c);
}

}  // namespace

GenaiConfig parse_genai_config(const std::string& text, const std::filesystem::path& origin) {
  JsonReader r(origin);
  Json root = r.parse(text);
  r.closed(r.object(root, "(top level)"), "", {"model", "search", "engine"},
           {{"speculative", "ORT GenAI's speculative settings are not imported (ogai takes --speculative on the command line)"}});
  GenaiConfig c;
  c.file = origin;
  if (!root.contains("model")) r.refuse("model", "missing: the model section is required");
  read_model(r, root["model"], c);
  if (root.contains("search")) read_search(r, root["search"], c);
  if (root.contains("engine")) read_engine(r, root["engine"], c);
  return c;
}

GenaiConfig read_genai_config(const std::filesystem::path& path) {
  return parse_genai_config(read_file(path), path);
}

}  // namespace ogai::importer
