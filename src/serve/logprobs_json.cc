#include "serve/logprobs_json.h"

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
  nlohmann::json tokens = nlohmann::json::array(), token_logprobs = nlohmann::json::array(),
                 top_logprobs = nlohmann::json::array(), offsets = nlohmann::json::array();
  for (const TokenLogprobs& e : entries) {
    const std::string token = model_.token_bytes(e.id);
    tokens.push_back(token);
    token_logprobs.push_back(e.logprob);
    nlohmann::json top = nlohmann::json::object();
    for (const TokenLogprob& t : e.top) {
      const std::string key = model_.token_bytes(t.id);
      if (!top.contains(key)) top[key] = t.logprob;  // two ids with one string: the likelier one
    }
    top_logprobs.push_back(std::move(top));
    offsets.push_back(text_offset_);
    text_offset_ += code_points(token);
  }
  return {{"tokens", std::move(tokens)}, {"token_logprobs", std::move(token_logprobs)},
          {"top_logprobs", std::move(top_logprobs)}, {"text_offset", std::move(offsets)}};
}

}  // namespace ogai::serve
