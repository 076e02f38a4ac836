#include "importer/import.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "importer/decoder_ports.h"
#include "importer/document_writer.h"
#include "importer/genai_config.h"
#include "importer/tokenizer_summary.h"
#include "onnx/graph_info.h"

namespace ogai::importer {
namespace fs = std::filesystem;
namespace {

// The decoder graph, confined to the folder (no absolute paths, no escapes through `..` or links).
fs::path decoder_graph(const GenaiConfig& c, const fs::path& dir) {
  const fs::path relative(c.decoder_filename);
  if (relative.empty() || relative.is_absolute())
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.filename '{}' must be a path inside the folder",
         c.decoder_filename);
  const fs::path graph = dir / relative;
  if (!fs::is_regular_file(graph))
    fail(ErrorCode::kNotFound, graph.string(), "not found (model.decoder.filename '{}')", c.decoder_filename);
  const fs::path root = fs::canonical(dir);
  const fs::path real = fs::canonical(graph);
  auto [end, _] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  if (end != root.end())
    fail(ErrorCode::kUnsupported, c.file.string(), "model.decoder.filename '{}' resolves outside the folder ({})",
         c.decoder_filename, real.string());
  return graph;
}

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
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorCode::kParse, path.string(), "not valid JSON: {}", e.what());
  }
}

// ogai stops on the union of special_tokens.eos, generation_config.json's eos_token_id and
// tokenizer_config.json's eos_token. That union must be exactly the config's EOS ids.
void check_eos_sources(const GenaiConfig& c, const TokenizerSummary& tok, const fs::path& dir) {
  std::set<std::int64_t> expected(c.eos_token_ids.begin(), c.eos_token_ids.end());
  std::set<std::int64_t> used = {c.eos_token_ids.front()};
  std::vector<std::string> sources = {"package.tokenizer.special_tokens.eos"};
  nlohmann::json gen = read_side_json(dir / "generation_config.json");
  if (gen.is_object() && gen.contains("eos_token_id")) {
    const nlohmann::json& ids = gen["eos_token_id"];
    for (const auto& id : ids.is_array() ? ids : nlohmann::json::array({ids}))
      if (id.is_number_integer()) used.insert(id.get<std::int64_t>());
    sources.push_back("generation_config.json eos_token_id");
  }
  nlohmann::json tc = read_side_json(dir / "tokenizer_config.json");
  if (tc.is_object() && tc.contains("eos_token")) {
    const nlohmann::json& eos = tc["eos_token"];
    std::string text = eos.is_string() ? eos.get<std::string>() : eos.is_object() ? eos.value("content", "") : "";
    if (auto id = tok.id_of(text)) used.insert(*id);
    sources.push_back("tokenizer_config.json eos_token");
  }
  auto list = [](const std::set<std::int64_t>& ids) {
    std::string text;
    for (std::int64_t id : ids) text += (text.empty() ? "" : ", ") + std::to_string(id);
    return "[" + text + "]";
  };
  if (used == expected) return;
  std::string from;
  for (const auto& s : sources) from += (from.empty() ? "" : ", ") + s;
  fail(ErrorCode::kUnsupported, c.file.string(), "model.eos_token_id is {} but ogai would stop on {} (from {}); a v1 "
       "document holds one EOS id, so further ids must come from generation_config.json's eos_token_id, and no source "
       "may add ids the config does not list", list(expected), list(used), from);
}

std::vector<SpecialTokenFact> special_tokens(const GenaiConfig& c, const TokenizerSummary& tok, const fs::path& dir) {
  std::vector<SpecialTokenFact> facts;
  if (c.bos_token_id) facts.push_back(special_token(c, tok, "bos", "bos_token_id", *c.bos_token_id));
  if (c.eos_token_ids.empty())
    fail(ErrorCode::kUnsupported, c.file.string(), "model.eos_token_id: missing; generation needs an end-of-sequence id");
  for (std::size_t i = 0; i < c.eos_token_ids.size(); ++i)
    special_token(c, tok, "eos", "eos_token_id", c.eos_token_ids[i]);
  facts.push_back(special_token(c, tok, "eos", "eos_token_id", c.eos_token_ids.front()));
  check_eos_sources(c, tok, dir);
  if (c.pad_token_id) facts.push_back(special_token(c, tok, "pad", "pad_token_id", *c.pad_token_id));
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
  const fs::path graph_file = decoder_graph(config, dir);
  const onnx::GraphInfo graph = onnx::read_graph_info(graph_file);
  DecoderPorts ports = bind_decoder_ports(config, graph, graph_file.string());
  check_kv_geometry(config, ports);
  check_attention_nodes(config, ports, graph);
  check_vocab(config, ports);
  const TokenizerSummary tok = read_tokenizer_summary(dir / "tokenizer.json");
  const DocumentPlan plan{.config = config,
                          .ports = ports,
                          .artifact = fs::path(config.decoder_filename).lexically_normal().generic_string(),
                          .tokenizer_algorithm = tok.algorithm,
                          .tokenizer_byte_level = tok.byte_level,
                          .tokenizer_vocab_size = tok.vocab_size,
                          .special_tokens = special_tokens(config, tok, dir),
                          .notes = config.notes};
  return {write_document(plan), config_file};
}

}  // namespace ogai::importer
