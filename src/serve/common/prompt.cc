#include "serve/common/prompt.h"

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "chat/continue_final.h"

namespace ogai::serve {
namespace {

const char* prompt_param(Endpoint endpoint) { return endpoint == Endpoint::kChat ? "messages" : "prompt"; }

bool starts_with_any(const std::string& s, std::initializer_list<const char*> prefixes) {
  for (const char* p : prefixes)
    if (s.starts_with(p)) return true;
  return false;
}

// A problem with the tools, the tool choice or the template variables names that field; a media
// part the package does not take names the part as the client wrote it; any other error is the
// template refusing the messages.
ApiError chat_error(const Error& e, const ApiRequest& request) {
  if (auto media = media_refusal(e, request)) return *media;
  if (starts_with_any(e.where(), {"tools", "tool_choice", "chat_template_kwargs"})) {
    if (e.code() == ErrorCode::kUnsupported) return unsupported(e.where(), e.what());
    return invalid_request(e.where(), e.what());
  }
  return invalid_request("messages", std::string("messages: the chat template refused them: ") + e.what());
}

std::vector<std::int32_t> chat_ids(const Model& model, ApiRequest& request) {
  if (!model.info().has_chat_template && request.transcription)
    throw unsupported("file", "file: the model " + quote_value(request.model) +
                                  " has no chat template to place the audio in; transcriptions need a package that "
                                  "takes audio");
  if (!model.info().has_chat_template)
    throw invalid_request("messages", "this model's package has no chat template; use /v1/completions");
  try {
    request.chat.add_generation_prompt = request.add_generation_prompt;
    request.chat_prompt = model.prepare_chat(request.messages, request.chat);
    if (request.continue_final_message)
      request.chat_prompt->text =
          chat::continue_final_message(std::move(request.chat_prompt->text), request.messages.back().content);
  } catch (const Error& e) {
    throw chat_error(e, request);
  }
  // The rendered prompt holds the placeholders; the media move to the options in their order
  // (include/ogai/media.h), so no request holds two copies of its files.
  for (ChatMessage& m : request.messages)
    for (ContentPart& p : m.parts)
      if (p.kind != ContentPart::Kind::kText) request.options.media.push_back(std::move(p.media));
  request.chat_prompt->media.clear();  // prepare_chat's copy of the same files
  if (request.chat_prompt->constraint) request.options.response_format = request.chat_prompt->constraint;
  return model.tokenize(request.chat_prompt->text, /*add_special_tokens=*/false);
}

void check_ids(const Model& model, const std::vector<std::int32_t>& ids, const char* param) {
  const std::int64_t vocab = model.info().vocab_size;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (vocab > 0 && ids[i] >= vocab)
      throw invalid_request(param, std::string(param) + "[" + std::to_string(i) + "]: token id " +
                                       std::to_string(ids[i]) + " is outside the vocabulary [0, " +
                                       std::to_string(vocab) + ")");
}

void check_context(const Model& model, std::size_t prompt_tokens, const char* param) {
  const std::int64_t context = model.info().context_length;
  if (context > 0 && static_cast<std::int64_t>(prompt_tokens) >= context)
    throw invalid_request(param, std::string(param) + ": the prompt has " + std::to_string(prompt_tokens) +
                                     " tokens; the model's context holds " + std::to_string(context) +
                                     " positions, leaving no room to generate",
                          "context_length_exceeded");
}

void check_logit_bias(const Model& model, const SamplingOptions& sampling) {
  const std::int64_t vocab = model.info().vocab_size;
  for (const auto& [id, bias] : sampling.logit_bias)
    if (id < 0 || (vocab > 0 && id >= vocab))
      throw invalid_request("logit_bias", "logit_bias: token id " + std::to_string(id) +
                                              " is outside the vocabulary [0, " + std::to_string(vocab) + ")");
}

// "messages[3].parts[1]" -> {3, 1}; "media[2]" -> {2, npos}.
std::optional<std::pair<std::size_t, std::size_t>> media_index(const std::string& where) {
  std::size_t i = 0, j = 0;
  int used = 0;
  if (std::sscanf(where.c_str(), "messages[%zu].parts[%zu]%n", &i, &j, &used) == 2 &&
      static_cast<std::size_t>(used) == where.size())
    return std::pair{i, j};
  if (std::sscanf(where.c_str(), "media[%zu]%n", &i, &used) == 1 && static_cast<std::size_t>(used) == where.size())
    return std::pair{i, std::string::npos};
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> media_refusal(const Error& e, const ApiRequest& request) {
  if (e.code() != ErrorCode::kUnsupported) return std::nullopt;
  auto at = media_index(e.where());
  if (!at) return std::nullopt;
  const MediaInput* media = nullptr;
  if (at->second == std::string::npos) {
    if (at->first < request.options.media.size()) media = &request.options.media[at->first];
  } else if (at->first < request.messages.size() && at->second < request.messages[at->first].parts.size()) {
    media = &request.messages[at->first].parts[at->second].media;
  }
  if (media == nullptr) return std::nullopt;
  const std::string kind = media->kind == MediaInput::Kind::kImage ? "image" : "audio";
  return unsupported(media->origin, media->origin + ": the model " + quote_value(request.model) + " takes no " + kind +
                                        " input (" + e.message() + ")");
}

std::vector<std::int32_t> prompt_ids(const Model& model, ApiRequest& request) {
  const char* param = prompt_param(request.endpoint);
  std::vector<std::int32_t> ids;
  if (request.endpoint == Endpoint::kChat) {
    ids = chat_ids(model, request);
  } else if (request.prompt_text) {
    if (!model.info().has_tokenizer)
      throw invalid_request(param, std::string(param) + ": this model's package has no tokenizer; give the prompt "
                                   "as token ids (an array of integers)");
    ids = model.tokenize(*request.prompt_text, /*add_special_tokens=*/true);
  } else {
    ids = request.prompt_ids;
    check_ids(model, ids, param);
  }
  if (ids.empty()) throw invalid_request(param, std::string(param) + ": the prompt has no tokens");
  check_context(model, ids.size(), param);
  check_logit_bias(model, request.options.sampling);
  return ids;
}

const ChatPrompt* parsed_prompt(const ApiRequest& request) {
  const auto& p = request.chat_prompt;
  return p && (p->parse_tool_calls || p->parse_reasoning) ? &*p : nullptr;
}

}  // namespace ogai::serve
