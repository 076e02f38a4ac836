#include "metadata/vocabulary.h"

#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "base/error.h"
#include "base/file.h"
#include "base/log.h"

namespace ogai::metadata {
namespace {

namespace fs = std::filesystem;

struct AddedToken {
  std::string content;
  std::int64_t id;
};

// The ids a tokenizer.json spans, as the tokenizer assigns them.
struct TokenizerIds {
  std::int64_t max_id = -1;       // over the model vocabulary and the added tokens
  std::int64_t model_max_id = -1;
  std::vector<AddedToken> beyond_model;  // added tokens not in the model vocabulary, above model_max_id
};

std::optional<std::int64_t> logits_width(const Package& p) {
  if (!p.decoder || !p.decoder->logits_output) return std::nullopt;
  auto g = p.graphs.find(p.decoder->component);
  if (g == p.graphs.end()) return std::nullopt;
  const onnx::ValueInfo* v = g->second.find_output(*p.decoder->logits_output);
  if (!v || !v->has_shape || v->shape.empty() || !v->shape.back().is_fixed()) return std::nullopt;
  return v->shape.back().value;
}

// Added tokens with a declared id above the model vocabulary's largest id (the only ones that
// can widen the id span), then those whose content the vocabulary holds are dropped.
void read_added(simdjson::dom::element root, TokenizerIds& ids) {
  simdjson::dom::array added;
  if (root["added_tokens"].get_array().get(added)) return;
  for (simdjson::dom::element item : added) {
    std::int64_t id;
    std::string_view content;
    if (item["id"].get_int64().get(id) || item["content"].get_string().get(content) || id <= ids.model_max_id) continue;
    ids.beyond_model.push_back({std::string(content), id});
  }
  std::set<std::string_view> wanted;
  for (const AddedToken& t : ids.beyond_model) wanted.insert(t.content);
  std::set<std::string_view> in_vocab;
  simdjson::dom::object vocab;
  if (!wanted.empty() && !root["model"]["vocab"].get_object().get(vocab))
    for (auto field : vocab)
      if (wanted.count(field.key)) in_vocab.insert(field.key);
  std::erase_if(ids.beyond_model, [&](const AddedToken& t) { return in_vocab.count(t.content) > 0; });
  for (const AddedToken& t : ids.beyond_model) ids.max_id = std::max(ids.max_id, t.id);
}

std::optional<TokenizerIds> read_tokenizer_ids(const fs::path& file, const std::string& name, Diagnostics& diags) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(read_file(file));
  simdjson::dom::element root;
  if (auto error = parser.parse(text).get(root)) {
    diags.report("VOCAB", name, "{} is not valid JSON: {}", name, simdjson::error_message(error));
    return std::nullopt;
  }
  TokenizerIds ids;
  simdjson::dom::object object;
  simdjson::dom::array list;
  if (!root["model"]["vocab"].get_object().get(object)) {
    for (auto field : object) {
      std::int64_t id;
      if (!field.value.get_int64().get(id)) ids.model_max_id = std::max(ids.model_max_id, id);
    }
  } else if (!root["model"]["vocab"].get_array().get(list)) {
    ids.model_max_id = static_cast<std::int64_t>(list.size()) - 1;  // Unigram: ids are positions
  } else {
    diags.report("VOCAB", name, "{} has no model.vocab (an object of token ids or a Unigram list)", name);
    return std::nullopt;
  }
  ids.max_id = ids.model_max_id;
  read_added(root, ids);
  return ids;
}

void compare(const Package& p, const TokenizerIds& ids, const std::string& name, std::optional<std::int64_t> logits,
             Diagnostics& diags) {
  const std::int64_t span = ids.max_id + 1;
  const auto* facts = p.document.package && p.document.package->tokenizer ? &*p.document.package->tokenizer : nullptr;
  const std::int64_t declared = facts ? facts->vocab_size : 0;
  // A larger vocabulary is legal (embedding tables are padded: Phi-3 has 32,064 rows for 32,011
  // tokens); a tokenizer id at or past it is not.
  if (declared > 0 && declared < span)
    diags.report("VOCAB", "package.tokenizer.vocab_size", "is {} but {} assigns ids up to {}, outside the vocabulary "
                 "(expected vocab_size >= {})", declared, name, span - 1, span);
  if (!logits) return;
  const std::string& port = *p.decoder->logits_output;
  if (p.document.model && p.document.model->vocab_size && *p.document.model->vocab_size != *logits)
    diags.report("VOCAB", "model.vocab_size", "is {} but the graph's logits output '{}' has {} entries", *p.document.model->vocab_size,
                 port, *logits);
  if (p.imported && span > *logits) {
    // An imported ORT GenAI folder runs as ORT GenAI runs it: ids past the logits are never
    // generated (its test models pair a full tokenizer with a small random graph). Said once.
    log(LogLevel::kWarn, "{}: spans {} ids but the graph's logits have {}; ids {}.. are never generated", name,
        span, *logits, *logits);
    return;
  }
  if (ids.model_max_id >= *logits)
    diags.report("VOCAB", name, "the model vocabulary has ids up to {}, outside the graph's logits ({} entries)", ids.model_max_id, *logits);
  for (const AddedToken& t : ids.beyond_model)
    if (t.id >= *logits)
      diags.report("VOCAB", name, "added token '{}' has id {}, outside the graph's logits ({} entries)", t.content, t.id, *logits);
  if (span < *logits && declared == 0)
    diags.report("VOCAB", name,
                 "{} spans {} ids but the graph's logits have {}: ids {}..{} would decode to nothing; declare "
                 "package.tokenizer.vocab_size: {} if the logits are padded",
                 name, span, *logits, span, *logits - 1, span);
}

}  // namespace

void check_vocabulary(const Package& package, Diagnostics& diags) {
  const auto& file = package.files.text.tokenizer_json;
  std::error_code ec;
  if (!file || !fs::is_regular_file(*file, ec)) return;
  std::string name = fs::relative(*file, package.files.root, ec).string();
  if (ec || name.empty()) name = file->filename().string();
  if (auto ids = read_tokenizer_ids(*file, name, diags)) compare(package, *ids, name, logits_width(package), diags);
}

}  // namespace ogai::metadata
