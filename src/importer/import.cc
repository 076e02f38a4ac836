#include "importer/import.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "importer/decoder_ports.h"
#include "importer/audio_processor.h"
#include "importer/document_writer.h"
#include "importer/encoder_decoder_writer.h"
#include "importer/genai_encoder.h"
#include "importer/genai_config.h"
#include "importer/multimodal_ports.h"
#include "importer/tokenizer_summary.h"
#include "onnx/graph_info.h"

namespace ogai::importer {
namespace fs = std::filesystem;
namespace {

void check_vocab(const GenaiConfig& c, const DecoderPorts& ports) {
  const onnx::Dim& dim = ports.logits.shape[2];
  if (c.vocab_size && dim.is_fixed() && dim.value != *c.vocab_size)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.vocab_size is {} but graph output '{}' of {} has {} logits "
         "(shape {})", *c.vocab_size, ports.logits.name, ports.graph, dim.value, shape_text(ports.logits));
}

SpecialTokenFact special_token(const GenaiConfig& c, const TokenizerSummary& tok, const char* name, const char* field,
                               std::int64_t id) {
  auto content = tok.content(id);
  if (!content)
    fail(ErrorCode::kUnsupported, c.file.string(), "model.{} {} is not a token of tokenizer.json (vocabulary of {})",
         field, id, tok.vocab_size);
  return {name, id, *content};
}

nlohmann::json read_side_json(const fs::path& path) {
  if (!fs::is_regular_file(path)) return nullptr;
  return parse_json_bounded<nlohmann::json>(read_file(path), path.string());
}

std::string id_list(const std::vector<std::int64_t>& ids) {
  std::string text;
  for (std::int64_t id : ids) text += (text.empty() ? "" : ", ") + std::to_string(id);
  return "[" + text + "]";
}

// ORT GenAI stops on model.eos_token_id alone; so does ogai for an imported folder. Side files
// that name other EOS ids are reported (once, when the folder is loaded), not followed.
void report_eos_sources(const GenaiConfig& c, const TokenizerSummary* tok, const fs::path& dir, ImportedFacts& facts) {
  const std::set<std::int64_t> stop(c.eos_token_ids.begin(), c.eos_token_ids.end());
  const std::string ours = "model.eos_token_id " + id_list(c.eos_token_ids);
  nlohmann::json gen = read_side_json(dir / "generation_config.json");
  if (gen.is_object() && gen.contains("eos_token_id")) {
    const nlohmann::json& ids = gen["eos_token_id"];
    std::vector<std::int64_t> listed;
    for (const auto& id : ids.is_array() ? ids : nlohmann::json::array({ids}))
      if (id.is_number_integer()) listed.push_back(id.get<std::int64_t>());
    if (std::set<std::int64_t>(listed.begin(), listed.end()) != stop)
      facts.warnings.push_back(fmt::format("generation_config.json eos_token_id is {} but genai_config.json's {} is "
                                           "the stop set (as ONNX Runtime GenAI stops)", id_list(listed), ours));
  }
  nlohmann::json tc = read_side_json(dir / "tokenizer_config.json");
  if (!tc.is_object() || !tc.contains("eos_token")) return;
  const nlohmann::json& eos = tc["eos_token"];
  std::string text = eos.is_string() ? eos.get<std::string>() : eos.is_object() ? eos.value("content", "") : "";
  std::optional<std::int64_t> id = tok ? tok->id_of(text) : std::nullopt;
  if (!id || !stop.contains(*id))
    facts.warnings.push_back(fmt::format("tokenizer_config.json eos_token '{}' is {} but genai_config.json's {} is the "
                                         "stop set (as ONNX Runtime GenAI stops)", text,
                                         id ? "id " + std::to_string(*id) : std::string("not a token of tokenizer.json"),
                                         ours));
}

std::vector<SpecialTokenFact> special_tokens(const GenaiConfig& c, const TokenizerSummary& tok) {
  std::vector<SpecialTokenFact> facts;
  if (c.bos_token_id) facts.push_back(special_token(c, tok, "bos", "bos_token_id", *c.bos_token_id));
  for (std::size_t i = 0; i < c.eos_token_ids.size(); ++i)
    special_token(c, tok, "eos", "eos_token_id", c.eos_token_ids[i]);
  facts.push_back(special_token(c, tok, "eos", "eos_token_id", c.eos_token_ids.front()));
  if (c.pad_token_id) facts.push_back(special_token(c, tok, "pad", "pad_token_id", *c.pad_token_id));
  return facts;
}

// Whisper's forced decoder prompt as special tokens (encoder_decoder_writer.h): the start token
// (model.decoder_start_token_id, else <|startoftranscript|>), then English, transcription and no
// timestamps, each where the tokenizer has it (ORT GenAI's Whisper examples force the same prompt).
void add_forced_tokens(const GenaiConfig& c, const TokenizerSummary& tok, std::vector<SpecialTokenFact>& facts) {
  if (c.decoder_start_token_id) {
    facts.push_back(special_token(c, tok, "decoder_start", "decoder_start_token_id", *c.decoder_start_token_id));
  } else if (auto id = tok.id_of("<|startoftranscript|>")) {
    facts.push_back({"decoder_start", *id, "<|startoftranscript|>"});
  } else {
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder_start_token_id: missing, and tokenizer.json has no "
         "<|startoftranscript|>: the decoder's first token is unknown");
  }
  for (const auto& [name, content] : {std::pair{"language", "<|en|>"}, std::pair{"task", "<|transcribe|>"},
                                      std::pair{"no_timestamps", "<|notimestamps|>"}})
    if (auto id = tok.id_of(content)) facts.push_back({name, *id, content});
}

void check_token_range(const GenaiConfig& c, const char* field, std::int64_t id) {
  if (id < 0 || (c.vocab_size && id >= *c.vocab_size))
    fail(ErrorCode::kUnsupported, c.file.string(), "model.{} {} is outside the vocabulary (model.vocab_size {})", field,
         id, c.vocab_size ? std::to_string(*c.vocab_size) : std::string("unknown"));
}

ImportedFacts imported_facts(const GenaiConfig& c, const TokenizerSummary* tok, const fs::path& dir) {
  if (c.eos_token_ids.empty())
    fail(ErrorCode::kUnsupported, c.file.string(), "model.eos_token_id: missing; generation needs an end-of-sequence id");
  if (!tok) {  // with a tokenizer, special_tokens() checks each id names one of its tokens
    for (std::int64_t id : c.eos_token_ids) check_token_range(c, "eos_token_id", id);
    if (c.bos_token_id) check_token_range(c, "bos_token_id", *c.bos_token_id);
    if (c.pad_token_id) check_token_range(c, "pad_token_id", *c.pad_token_id);
  }
  ImportedFacts facts;
  facts.eos_ids = c.eos_token_ids;
  facts.bos_id = c.bos_token_id;
  facts.pad_id = c.pad_token_id;
  facts.session = c.session;
  facts.has_tokenizer = tok != nullptr;
  report_eos_sources(c, tok, dir, facts);
  return facts;
}

}  // namespace

bool is_genai_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::is_regular_file(dir / kGenaiConfigName, ec);
}

bool is_genai_config_file(const fs::path& path) {
  std::error_code ec;
  return path.filename() == kGenaiConfigName && fs::is_regular_file(path, ec);
}

ImportResult import_genai_folder(const fs::path& folder_or_config) {
  const fs::path dir = is_genai_config_file(folder_or_config) ? folder_or_config.parent_path() : folder_or_config;
  const fs::path config_file = dir / kGenaiConfigName;
  if (!fs::is_regular_file(config_file))
    fail(ErrorCode::kNotFound, config_file.string(), "not found: an ONNX Runtime GenAI folder has genai_config.json");
  GenaiConfig config = read_genai_config(config_file);
  const fs::path graph_file = folder_file(config, dir, config.decoder_filename, "model.decoder.filename");
  const onnx::GraphInfo graph = onnx::read_graph_info(graph_file);
  EncoderPorts encoder;  // encoder-decoder folders: the decoder is bound without its cross ports
  const onnx::GraphInfo decoder_view =
      config.encoder ? split_cross_ports(config, graph, graph_file.string(), encoder) : graph;
  DecoderPorts ports = bind_decoder_ports(config, decoder_view, graph_file.string());
  check_kv_geometry(config, ports);
  check_attention_nodes(config, ports, graph);
  check_vocab(config, ports);
  std::optional<MultimodalPlan> multimodal;
  if (config.multimodal.any()) multimodal = bind_multimodal(config, dir, ports);
  std::optional<TokenizerSummary> tok;
  if (fs::exists(dir / "tokenizer.json")) tok = read_tokenizer_summary(dir / "tokenizer.json");
  ImportedFacts facts = imported_facts(config, tok ? &*tok : nullptr, dir);
  DocumentPlan plan{.config = config,
                    .ports = ports,
                    .artifact = fs::path(config.decoder_filename).lexically_normal().generic_string(),
                    .tokenizer_algorithm = tok ? tok->algorithm : std::string(),
                    .tokenizer_byte_level = tok && tok->byte_level,
                    .tokenizer_vocab_size = tok ? tok->vocab_size : 0,
                    .special_tokens = tok ? special_tokens(config, *tok) : std::vector<SpecialTokenFact>{},
                    .notes = config.notes,
                    .multimodal = multimodal ? &*multimodal : nullptr};
  if (!tok) {
    plan.notes.push_back("no tokenizer.json: the package runs from token ids; model.eos_token_id " +
                         id_list(config.eos_token_ids) + " has no v1 field without package.tokenizer");
  }
  if (tok && config.eos_token_ids.size() > 1)
    plan.notes.push_back("model.eos_token_id " + id_list(config.eos_token_ids) + ": v1 holds one EOS id (special_tokens."
                         "eos); ogai stops on the whole list when it imports the folder itself");
  for (const auto& line : config.session.ignored) plan.notes.push_back(line);
  if (config.encoder) {
    const fs::path encoder_file = folder_file(config, dir, config.encoder->filename, "model.encoder.filename");
    bind_encoder_ports(config, onnx::read_graph_info(encoder_file), encoder_file.string(), encoder);
    auto audio = read_audio_processor(dir);
    if (!audio)
      fail(ErrorCode::kUnsupported, (dir / kAudioProcessorName).string(), "not found: a whisper folder's encoder reads "
           "log-mel features, which the package's preprocessing.audio program computes from it");
    if (tok) add_forced_tokens(config, *tok, plan.special_tokens);
    EncoderDocumentPlan encoder_plan{plan, encoder, fs::path(config.encoder->filename).lexically_normal().generic_string(),
                                     std::move(*audio)};
    return {write_encoder_decoder_document(encoder_plan), config_file, std::move(facts)};
  }
  return {write_document(plan), config_file, std::move(facts)};
}

}  // namespace ogai::importer
