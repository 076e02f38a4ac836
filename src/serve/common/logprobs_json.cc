#include "serve/common/logprobs_json.h"

#include <string>

namespace ogai::serve {
namespace {

nlohmann::json byte_list(const std::string& s) {
  nlohmann::json bytes = nlohmann::json::array();
  for (char c : s) bytes.push_back(static_cast<unsigned char>(c));
  return bytes;
}

// Unicode code points of UTF-8 text (each invalid byte counts as one, as its U+FFFD does).
std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

nlohmann::json chat_token(const std::string& token, float logprob) {
  return {{"token", token}, {"logprob", logprob}, {"bytes", byte_list(token)}};
}

nlohmann::json empty_completion() {
  return {{"tokens", nlohmann::json::array()}, {"token_logprobs", nlohmann::json::array()},
          {"top_logprobs", nlohmann::json::array()}, {"text_offset", nlohmann::json::array()}};
}

}  // namespace

nlohmann::json LogprobsJson::operator()(std::span<const TokenLogprobs> entries) {
  return endpoint_ == Endpoint::kChat ? chat(entries) : completion(entries);
}

nlohmann::json LogprobsJson::chat(std::span<const TokenLogprobs> entries) const {
  nlohmann::json content = nlohmann::json::array();
  for (const TokenLogprobs& e : entries) {
    nlohmann::json item = chat_token(model_.token_bytes(e.id), e.logprob);
    nlohmann::json top = nlohmann::json::array();
    for (const TokenLogprob& t : e.top) top.push_back(chat_token(model_.token_bytes(t.id), t.logprob));
    item["top_logprobs"] = std::move(top);
    content.push_back(std::move(item));
  }
  return {{"content", std::move(content)}, {"refusal", nullptr}};
}

nlohmann::json LogprobsJson::completion(std::span<const TokenLogprobs> entries) {
  nlohmann::json out = empty_completion();
  for (const TokenLogprobs& e : entries) add_completion_token(out, model_.token_bytes(e.id), &e);
  return out;
}

void LogprobsJson::add_completion_token(nlohmann::json& out, const std::string& token, const TokenLogprobs* entry) {
  out["tokens"].push_back(token);
  if (entry == nullptr) {
    out["token_logprobs"].push_back(nullptr);
    out["top_logprobs"].push_back(nullptr);
  } else {
    out["token_logprobs"].push_back(entry->logprob);
    nlohmann::json top = nlohmann::json::object();
    for (const TokenLogprob& t : entry->top) {
      const std::string key = model_.token_bytes(t.id);
      if (!top.contains(key)) top[key] = t.logprob;  // two ids with one string: the likelier one
    }
    out["top_logprobs"].push_back(std::move(top));
  }
  out["text_offset"].push_back(text_offset_);
  text_offset_ += code_points(token);
}

nlohmann::json LogprobsJson::prompt(std::span<const std::optional<TokenLogprobs>> entries,
                                    std::span<const std::int32_t> ids) {
  nlohmann::json out = empty_completion();
  std::string decoded;  // the decoding of ids[0, i)
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::string next = model_.detokenize(ids.first(i + 1), /*skip_special_tokens=*/true);
    const bool extends = next.compare(0, decoded.size(), decoded) == 0;
    const std::string piece = extends ? next.substr(decoded.size()) : model_.token_bytes(ids[i]);
    const TokenLogprobs* entry = i < entries.size() && entries[i] ? &*entries[i] : nullptr;
    add_completion_token(out, piece, entry);
    decoded = std::move(next);
  }
  return out;
}

void LogprobsJson::append(nlohmann::json& into, const nlohmann::json& more) {
  for (const char* key : {"tokens", "token_logprobs", "top_logprobs", "text_offset"})
    for (const auto& v : more.at(key)) into.at(key).push_back(v);
}

}  // namespace ogai::serve
