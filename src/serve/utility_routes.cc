// The utility routes beside generation: GET /version, and llama.cpp's POST /tokenize and
// POST /detokenize (same request and response shapes, so tools written for its server work):
//   /tokenize   {"content": TEXT, "add_special": false, "with_pieces": false}
//               -> {"tokens": [ID...]} or, with pieces, {"tokens": [{"id": ID, "piece": P}...]}
//                  where P is the token's text, or an array of its bytes when not valid UTF-8.
//   /detokenize {"tokens": [ID...]} -> {"content": TEXT}
// The bodies are parsed once, their bounds checked while the DOM is built (parse_json_body); every
// refusal is a 400 naming the field.
#include <nlohmann/json.hpp>

#include "ogai/version.h"
#include "serve/common/json_fields.h"
#include "serve/common/json_limits.h"
#include "serve/server_impl.h"
#include "tokenizer/cancel.h"

namespace ogai::serve {
namespace {

bool optional_bool(const RequestJson& doc, const char* field) {
  const auto it = doc.find(field);
  if (it == doc.end() || it->is_null()) return false;
  if (!it->is_boolean()) throw invalid_request(field, std::string(field) + " must be true or false");
  return it->get<bool>();
}

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += n;
  }
  return true;
}

nlohmann::json piece_json(const std::string& bytes) {
  if (valid_utf8(bytes)) return bytes;
  nlohmann::json out = nlohmann::json::array();
  for (const char c : bytes) out.push_back(static_cast<unsigned char>(c));
  return out;
}

http::Response json_response(const nlohmann::json& value) {
  http::Response r;
  r.content_type = "application/json";
  r.body = to_text(value);
  return r;
}

}  // namespace

http::Response Server::Impl::answer_version() const {
  return json_response({{"version", OGAI_VERSION_STRING}, {"onnxruntime", onnxruntime_version()},
                        {"model", name}});
}

http::Response Server::Impl::answer_tokenize(const std::string& body) const {
  const RequestJson doc = parse_json_body(body);
  const auto content = doc.find("content");
  if (content == doc.end() || !content->is_string())
    throw invalid_request("content", "content must be a string (the text to tokenize)");
  const bool add_special = optional_bool(doc, "add_special");
  const bool with_pieces = optional_bool(doc, "with_pieces");
  const std::vector<std::int32_t> ids = model->tokenize(content->get_ref<const std::string&>(), add_special);
  nlohmann::json tokens = nlohmann::json::array();
  for (const std::int32_t id : ids) {
    if (!with_pieces) {
      tokens.push_back(id);
      continue;
    }
    tokenizer::check_cancelled();  // the pieces of a long text stop too when the client left
    const std::int32_t one[] = {id};
    tokens.push_back({{"id", id}, {"piece", piece_json(model->detokenize(one))}});
  }
  return json_response({{"tokens", std::move(tokens)}});
}

http::Response Server::Impl::answer_detokenize(const std::string& body) const {
  const RequestJson doc = parse_json_body(body);
  const auto tokens = doc.find("tokens");
  if (tokens == doc.end() || !tokens->is_array())
    throw invalid_request("tokens", "tokens must be an array of token ids");
  const std::int64_t vocab = model->info().vocab_size;
  const std::int64_t limit = vocab > 0 ? vocab : std::int64_t{1} << 31;
  const std::vector<std::int32_t> ids = read_token_ids(*tokens, "tokens", "tokens", limit);
  return json_response({{"content", model->detokenize(ids)}});
}

void Server::Impl::handle_utility(const std::string& label, const std::shared_ptr<http::Exchange>& exchange) {
  try {
    tokenizer::CancelScope cancel([&exchange] { return exchange->client_gone(); });
    const std::string& body = exchange->request().body;
    exchange->respond(label == "/tokenize" ? answer_tokenize(body) : answer_detokenize(body));
  } catch (const ApiError& e) {
    exchange->respond(error_response(e));
  } catch (const Error& e) {
    exchange->respond(error_response(invalid_request("", e.what())));
  }
}

}  // namespace ogai::serve
