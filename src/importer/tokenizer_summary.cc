#include "importer/tokenizer_summary.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"

namespace ogai::importer {
namespace {

using Json = nlohmann::json;

bool mentions_byte_level(const Json& node) {
  if (!node.is_object()) return false;
  if (node.value("type", "") == "ByteLevel") return true;
  for (const char* list : {"pretokenizers", "decoders"})
    if (node.contains(list) && node[list].is_array())
      for (const Json& child : node[list])
        if (mentions_byte_level(child)) return true;
  return false;
}

void add(TokenizerSummary& s, std::int64_t id, const std::string& content, bool added) {
  s.tokens[id] = content;
  if (added || !s.ids.contains(content)) s.ids[content] = id;
  s.vocab_size = std::max(s.vocab_size, id + 1);
}

void read_vocab(TokenizerSummary& s, const Json& vocab) {
  if (vocab.is_object()) {  // BPE, WordPiece, WordLevel: {token: id}
    for (const auto& [token, id] : vocab.items())
      if (id.is_number_integer()) add(s, id.get<std::int64_t>(), token, false);
  } else if (vocab.is_array()) {  // Unigram: [[piece, score], ...], the index is the id
    for (std::size_t i = 0; i < vocab.size(); ++i)
      if (vocab[i].is_array() && !vocab[i].empty() && vocab[i][0].is_string())
        add(s, static_cast<std::int64_t>(i), vocab[i][0].get<std::string>(), false);
  }
}

}  // namespace

std::optional<std::string> TokenizerSummary::content(std::int64_t id) const {
  auto it = tokens.find(id);
  return it == tokens.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::optional<std::int64_t> TokenizerSummary::id_of(const std::string& text) const {
  auto it = ids.find(text);
  return it == ids.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
}

TokenizerSummary read_tokenizer_summary(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path))
    fail(ErrorCode::kNotFound, path.string(), "not found: ogai needs the Hugging Face tokenizer.json beside genai_config.json");
  return parse_tokenizer_summary(read_file(path), path.string());
}

TokenizerSummary parse_tokenizer_summary(const std::string& text, const std::string& origin) {
  Json root = parse_json_bounded<Json>(text, origin);
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object() || !root["model"].contains("type") ||
      !root["model"]["type"].is_string())
    fail(ErrorCode::kParse, origin, "not a tokenizer.json: no model.type");
  TokenizerSummary s;
  s.algorithm = root["model"]["type"].get<std::string>();
  std::transform(s.algorithm.begin(), s.algorithm.end(), s.algorithm.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  s.byte_level = mentions_byte_level(root.value("pre_tokenizer", Json())) || mentions_byte_level(root.value("decoder", Json()));
  if (root["model"].contains("vocab")) read_vocab(s, root["model"]["vocab"]);
  if (root.contains("added_tokens") && root["added_tokens"].is_array())
    for (const Json& token : root["added_tokens"])
      if (token.is_object() && token.value("id", Json()).is_number_integer() && token.value("content", Json()).is_string())
        add(s, token["id"].get<std::int64_t>(), token["content"].get<std::string>(), true);
  return s;
}

}  // namespace ogai::importer
