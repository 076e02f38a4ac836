#include "importer/optimum_import.h"

#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "importer/cache_branch.h"
#include "importer/decoder_ports.h"
#include "importer/document_writer.h"
#include "importer/json_reader.h"
#include "importer/optimum_variant.h"
#include "importer/tokenizer_summary.h"
#include "onnx/graph_info.h"

namespace ogai::importer {
namespace fs = std::filesystem;
namespace {

// config.json values, typed; absent or null = unset.
class Config {
 public:
  Config(const fs::path& file, Json json) : reader_(file), json_(std::move(json)) {
    if (!json_.is_object()) reader_.wrong_type("", "a JSON object", json_);
  }

  std::optional<std::int64_t> integer(std::initializer_list<const char*> keys) const {
    for (const char* key : keys)
      if (has(key)) return reader_.integer(json_[key], key);
    return std::nullopt;
  }
  std::string string(const char* key) const { return has(key) ? reader_.string(json_[key], key) : std::string(); }
  bool has(const char* key) const { return json_.contains(key) && !json_[key].is_null(); }
  const Json& at(const char* key) const { return json_[key]; }
  const JsonReader& reader() const { return reader_; }

 private:
  JsonReader reader_;
  Json json_;
};

Json read_json(const fs::path& path) {
  return JsonReader(path).parse(read_file(path));
}

// eos_token_id: one id or a list of them.
std::vector<std::int64_t> id_list(const JsonReader& r, const Json& value, const char* key) {
  std::vector<std::int64_t> ids;
  if (value.is_array())
    for (std::size_t i = 0; i < value.size(); ++i) ids.push_back(r.integer(value[i], fmt::format("{}[{}]", key, i)));
  else if (!value.is_null())
    ids.push_back(r.integer(value, key));
  return ids;
}

// What config.json (and generation_config.json for the token ids, as transformers' generate
// reads them) say, as the GenAI importer's config.
GenaiConfig genai_facts(const Config& c, const fs::path& dir, const fs::path& graph) {
  GenaiConfig g;
  g.file = dir / kHfConfigName;
  g.type = c.string("model_type");
  if (c.has("text_config") || c.has("vision_config") || c.has("audio_config") || c.has("encoder"))
    c.reader().refuse(c.has("text_config") ? "text_config" : c.has("vision_config") ? "vision_config"
                      : c.has("audio_config") ? "audio_config" : "encoder",
                      "a multimodal or encoder-decoder export; only decoder-only language models are imported");
  g.vocab_size = c.integer({"vocab_size"});
  g.context_length = c.integer({"max_position_embeddings", "n_positions"});
  g.hidden_size = c.integer({"hidden_size", "n_embd"});
  g.num_attention_heads = c.integer({"num_attention_heads", "n_head"});
  g.num_hidden_layers = c.integer({"num_hidden_layers", "n_layer"});
  g.num_key_value_heads = c.integer({"num_key_value_heads"});
  if (!g.num_key_value_heads) g.num_key_value_heads = g.num_attention_heads;  // transformers' default
  g.head_size = c.integer({"head_dim"});
  if (!g.head_size && g.hidden_size && g.num_attention_heads && *g.num_attention_heads > 0)
    g.head_size = *g.hidden_size / *g.num_attention_heads;
  if (c.has("layer_types"))
    for (const Json& t : c.at("layer_types"))
      if (!t.is_string() || (t != "full_attention" && t != "sliding_attention"))
        c.reader().refuse("layer_types", fmt::format("{} is a layer kind the importer does not map (full_attention "
                                                     "and sliding_attention are)", t.dump()));
  g.bos_token_id = c.integer({"bos_token_id"});
  g.pad_token_id = c.integer({"pad_token_id"});
  if (c.has("eos_token_id")) g.eos_token_ids = id_list(c.reader(), c.at("eos_token_id"), "eos_token_id");
  const fs::path gen_file = dir / "generation_config.json";
  if (fs::is_regular_file(gen_file)) {
    const Json gen = read_json(gen_file);
    const JsonReader r(gen_file);
    if (gen.contains("eos_token_id") && !gen["eos_token_id"].is_null())
      g.eos_token_ids = id_list(r, gen["eos_token_id"], "eos_token_id");
    if (gen.contains("bos_token_id") && !gen["bos_token_id"].is_null()) g.bos_token_id = r.integer(gen["bos_token_id"], "bos_token_id");
    if (gen.contains("pad_token_id") && !gen["pad_token_id"].is_null()) g.pad_token_id = r.integer(gen["pad_token_id"], "pad_token_id");
  }
  g.decoder_filename = graph.generic_string();
  return g;
}

// Notes for the document's header: what the export says that the document does not carry.
std::vector<std::string> header_notes(const Config& c, const fs::path& dir, const fs::path& graph) {
  std::vector<std::string> notes;
  if (c.has("sliding_window") && !(c.has("use_sliding_window") && c.at("use_sliding_window") == false))
    notes.push_back(fmt::format("config.json sliding_window {}: the graph applies the window in its own attention "
                                "mask over the full cache ogai keeps", c.at("sliding_window").dump()));
  for (const fs::path& candidate : optimum_graphs_present(dir))
    if (candidate != graph)
      notes.push_back(fmt::format("{} is not used ({} runs)", candidate.generic_string(), graph.generic_string()));
  if (fs::is_regular_file(dir / "onnx" / "decoder_model.onnx"))
    notes.push_back("onnx/decoder_model.onnx (the split export's no-past graph) is not used: the with-past graph "
                    "prefills from an empty cache");
  return notes;
}

SpecialTokenFact token_fact(const GenaiConfig& g, const TokenizerSummary& tok, const char* name, std::int64_t id) {
  auto content = tok.content(id);
  if (!content)
    fail(ErrorCode::kUnsupported, g.file.string(), "{}_token_id {} is not a token of tokenizer.json (vocabulary of {})",
         name, id, tok.vocab_size);
  return {name, id, *content};
}

std::vector<SpecialTokenFact> special_tokens(const GenaiConfig& g, const TokenizerSummary& tok,
                                             std::vector<std::string>& notes) {
  std::vector<SpecialTokenFact> facts;
  if (g.bos_token_id) facts.push_back(token_fact(g, tok, "bos", *g.bos_token_id));
  for (std::int64_t id : g.eos_token_ids) token_fact(g, tok, "eos", id);
  facts.push_back(token_fact(g, tok, "eos", g.eos_token_ids.front()));
  if (g.pad_token_id && tok.content(*g.pad_token_id)) facts.push_back(token_fact(g, tok, "pad", *g.pad_token_id));
  else if (g.pad_token_id) notes.push_back(fmt::format("pad_token_id {} is not a token of tokenizer.json", *g.pad_token_id));
  return facts;
}

// The shared binding's messages name genai_config.json's paths; say config.json's fields instead.
std::string config_names(std::string text) {
  static const std::pair<std::string_view, std::string_view> kNames[] = {
      {"model.decoder.head_size", "head_dim"}, {"model.decoder.inputs.past_key_names", "the past key name"},
      {"model.decoder.inputs.past_value_names", "the past value name"}, {"model.decoder.", ""}, {"model.", ""}};
  for (const auto& [from, to] : kNames)
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

template <typename F>
auto with_config_names(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.code(), e.where(), config_names(e.message()));
  }
}

void check_vocab(const GenaiConfig& g, const DecoderPorts& ports) {
  const onnx::Dim& dim = ports.logits.shape[2];
  if (g.vocab_size && dim.is_fixed() && dim.value != *g.vocab_size)
    fail(ErrorCode::kUnsupported, g.file.string(), "vocab_size is {} but graph output '{}' of {} has {} logits",
         *g.vocab_size, ports.logits.name, ports.graph, dim.value);
}

}  // namespace

std::optional<OptimumGraph> optimum_decoder_graph(const fs::path& dir, const std::string& dtype) {
  if (!is_optimum_folder(dir)) return std::nullopt;
  return find_optimum_graph(dir, dtype);
}

bool is_optimum_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::is_regular_file(dir / kHfConfigName, ec) &&
         !fs::exists(dir / kGenaiConfigName, ec) && !optimum_graphs_present(dir).empty();
}

ImportResult import_optimum_folder(const fs::path& dir, const std::string& dtype) {
  const fs::path config_file = dir / kHfConfigName;
  if (!fs::is_regular_file(config_file))
    fail(ErrorCode::kNotFound, config_file.string(), "not found: an Optimum / onnx-community export has config.json");
  const std::optional<OptimumGraph> chosen = find_optimum_graph(dir, dtype);
  if (!chosen)
    fail(ErrorCode::kNotFound, dir.string(), "no decoder graph: an Optimum export holds onnx/model.onnx (or "
                                             "decoder_model_merged.onnx, decoder_with_past_model.onnx, or a dtype "
                                             "variant such as model_fp16.onnx)");
  const fs::path* graph_name = &chosen->path;
  const Config config(config_file, read_json(config_file));
  GenaiConfig g = genai_facts(config, dir, *graph_name);
  const fs::path graph_file = dir / *graph_name;
  const onnx::GraphInfo graph = onnx::read_graph_info(graph_file);
  // A merged decoder's flag (importer/cache_branch.h): a graph input, not a constant folded in.
  if (graph.find_input(kCacheBranchInput) != nullptr && !graph.is_initializer(kCacheBranchInput))
    g.names.cache_branch = kCacheBranchInput;
  DecoderPorts ports = with_config_names([&] {
    DecoderPorts bound = bind_decoder_ports(g, graph, graph_file.string());
    check_kv_geometry(g, bound);
    check_attention_nodes(g, bound, graph);
    return bound;
  });
  check_vocab(g, ports);
  if (g.eos_token_ids.empty())
    fail(ErrorCode::kUnsupported, config_file.string(),
         "eos_token_id: missing here and in generation_config.json; generation needs an end-of-sequence id");
  std::vector<std::string> notes = header_notes(config, dir, *graph_name);
  if (!chosen->fallback.empty()) notes.push_back(fmt::format("dtype {} runs: {}", chosen->dtype, chosen->fallback));
  std::optional<TokenizerSummary> tok;
  if (fs::exists(dir / "tokenizer.json")) tok = read_tokenizer_summary(dir / "tokenizer.json");
  else notes.push_back("no tokenizer.json: the package runs from token ids");
  if (tok && g.eos_token_ids.size() > 1)
    notes.push_back(fmt::format("eos_token_id lists {} ids: v1 holds one (special_tokens.eos); ogai stops on all of "
                                "them when it imports the folder itself", g.eos_token_ids.size()));
  ImportedFacts facts;
  facts.eos_ids = g.eos_token_ids;
  facts.bos_id = g.bos_token_id;
  facts.pad_id = g.pad_token_id;
  facts.has_tokenizer = tok.has_value();
  DocumentPlan plan{.config = g,
                    .ports = ports,
                    .artifact = graph_name->generic_string(),
                    .tokenizer_algorithm = tok ? tok->algorithm : std::string(),
                    .tokenizer_byte_level = tok && tok->byte_level,
                    .tokenizer_vocab_size = tok ? tok->vocab_size : 0,
                    .special_tokens = tok ? special_tokens(g, *tok, notes) : std::vector<SpecialTokenFact>{},
                    .notes = {}};
  plan.notes = std::move(notes);
  return {write_document(plan), config_file, std::move(facts)};
}

}  // namespace ogai::importer
