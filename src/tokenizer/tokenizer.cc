#include "tokenizer/tokenizer.h"

#include <algorithm>

#include "base/error.h"
#include "base/file.h"
#include "tokenizer/json.h"
#include "tokenizer/pipeline.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {

Tokenizer Tokenizer::load(const std::filesystem::path& path) {
  std::filesystem::path file = path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) file = path / "tokenizer.json";
  if (!std::filesystem::exists(file, ec))
    fail(ErrorCode::kNotFound, file.string(), "no such file (expected a tokenizer.json or a package directory holding one)");
  std::unique_ptr<JsonDocument> doc = JsonDocument::from_file(file);
  return Tokenizer(load_pipeline(doc->root()));
}

Tokenizer Tokenizer::from_json(std::string_view json, const std::string& source) {
  JsonDocument doc(json, source);
  return Tokenizer(load_pipeline(doc.root()));
}

std::vector<std::int32_t> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  if (auto bad = find_invalid_utf8(text))
    fail(ErrorCode::kInvalidArgument, "tokenizer input", "text is not valid UTF-8 at byte {}", *bad);
  std::vector<std::int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  pipeline_->encode_text(text, ids);
  pipeline_->finish(ids, add_special_tokens);
  pipeline_->pad(ids, ids.size());
  return ids;
}

std::vector<std::vector<std::int32_t>> Tokenizer::encode_batch(std::span<const std::string> texts,
                                                               bool add_special_tokens) const {
  std::vector<std::vector<std::int32_t>> out;
  out.reserve(texts.size());
  std::size_t longest = 0;
  for (const std::string& t : texts) {
    if (auto bad = find_invalid_utf8(t))
      fail(ErrorCode::kInvalidArgument, "tokenizer input", "text {} is not valid UTF-8 at byte {}", out.size(), *bad);
    std::vector<std::int32_t> ids;
    pipeline_->encode_text(t, ids);
    pipeline_->finish(ids, add_special_tokens);
    longest = std::max(longest, ids.size());
    out.push_back(std::move(ids));
  }
  for (auto& ids : out) pipeline_->pad(ids, longest);
  return out;
}

namespace {

// The text of `ids`; with `skip`, special tokens other than `kept` are left out.
std::string decode_ids(const Pipeline& p, std::span<const std::int32_t> ids, bool skip,
                       std::span<const std::int32_t> kept) {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (std::int32_t id : ids) {
    auto text = p.token_text(id);
    if (!text) continue;
    if (skip && p.added.is_special_content(*text) && std::find(kept.begin(), kept.end(), id) == kept.end()) continue;
    tokens.emplace_back(*text);
  }
  ChainState state;
  return p.decode_tokens(std::move(tokens), state);
}

}  // namespace

std::string Tokenizer::decode(std::span<const std::int32_t> ids, bool skip_special_tokens) const {
  return decode_ids(*pipeline_, ids, skip_special_tokens, {});
}

std::string Tokenizer::decode_keeping(std::span<const std::int32_t> ids,
                                      std::span<const std::int32_t> kept_specials) const {
  return decode_ids(*pipeline_, ids, true, kept_specials);
}

std::optional<std::int32_t> Tokenizer::token_to_id(std::string_view token) const {
  std::int32_t id = pipeline_->added.find(token);
  if (id < 0) id = pipeline_->model->vocab().find(token);
  if (id < 0) return std::nullopt;
  return id;
}

std::string Tokenizer::id_to_token(std::int32_t id) const {
  auto text = pipeline_->token_text(id);
  return text ? std::string(*text) : std::string();
}

bool Tokenizer::has_id(std::int32_t id) const { return pipeline_->token_text(id).has_value(); }

std::size_t Tokenizer::vocab_size() const { return static_cast<std::size_t>(pipeline_->max_id) + 1; }

bool Tokenizer::is_special(std::int32_t id) const { return pipeline_->added.is_special(id); }

}  // namespace ogai::tokenizer
