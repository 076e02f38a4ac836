#include "serve/audio/task_prompt.h"

#include <optional>
#include <string>
#include <utility>

#include "serve/audio/transcription_request.h"
#include "serve/common/request_fields.h"

namespace ogai::serve {
namespace {

// The id of `text` when the tokenizer reads it as exactly one token.
std::optional<TokenId> single_token(const Model& model, const std::string& text) {
  const std::vector<TokenId> ids = model.tokenize(text, /*add_special_tokens=*/false);
  if (ids.size() != 1) return std::nullopt;
  return ids[0];
}

TokenId required_token(const Model& model, const std::string& text, const char* field, const std::string& why) {
  if (auto id = single_token(model, text)) return *id;
  throw invalid_request(field, why);
}

std::vector<std::int32_t> task_ids(const Model& model, const TranscriptionState& state) {
  if (!single_token(model, "<|startoftranscript|>"))
    throw unsupported("model", "model: this encoder-decoder package's tokenizer has no <|startoftranscript|> token; "
                               "the transcription routes build Whisper's task prompt");
  const std::string lang = state.language.empty() ? "en" : state.language;
  std::vector<std::int32_t> ids{*single_token(model, "<|startoftranscript|>")};
  ids.push_back(required_token(model, "<|" + lang + "|>", "language",
                               "language: " + quote_value(lang) + " is not a language this model knows (<|" + lang +
                                   "|> is not one of its tokens); give an ISO-639-1 code such as \"en\""));
  const char* task = state.translate ? "<|translate|>" : "<|transcribe|>";
  ids.push_back(required_token(model, task, "model", std::string("model: the model's tokenizer has no ") + task +
                                                         " token"));
  if (auto none = single_token(model, "<|notimestamps|>")) ids.push_back(*none);
  return ids;
}

}  // namespace

void to_task_prompt(const Model& model, ApiRequest& request) {
  const TranscriptionState& state = *request.transcription;
  if (state.has_prompt)
    throw unsupported("prompt", "prompt: previous-text prompts are not implemented for encoder-decoder (Whisper) "
                                "packages; leave it out");
  std::vector<MediaInput> media;
  for (ChatMessage& m : request.messages)
    for (ContentPart& p : m.parts)
      if (p.kind != ContentPart::Kind::kText) media.push_back(std::move(p.media));
  request.messages.clear();
  request.media_images = 0;
  request.endpoint = Endpoint::kCompletion;
  request.options.media = std::move(media);
  request.prompt_text.reset();
  request.prompt_ids = task_ids(model, state);
}

}  // namespace ogai::serve
