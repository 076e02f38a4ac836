// ApiRequest: one OpenAI-style generation request (POST /v1/chat/completions or /v1/completions)
// parsed from its JSON body into ogai's GenerationOptions, without touching a model.
//
// Fields read (null = absent): model (required), messages (chat, required) or prompt
// (completions, required), max_completion_tokens / max_tokens, temperature, top_p, seed, stop
// (string or list), frequency_penalty, presence_penalty, logit_bias, stream,
// stream_options.include_usage, and the extensions top_k, min_p, typical_p, repetition_penalty,
// ignore_eos; chat messages with text, image_url and input_audio parts (openai/chat_messages.h,
// read into the request model of common/conversation.h); chat `tools`, `tool_choice`, `parallel_tool_calls`, `chat_template_kwargs` and
// `tool_call_format` (serve/common/parse_tools.h) into `chat`; chat `add_generation_prompt` and
// `continue_final_message`; chat `logprobs` (bool) with `top_logprobs` (0..20), completions `logprobs` (0..5)
// into options.logprobs; completions `prompt` (a string, token ids, or an array of strings or of
// token-id arrays, at most kMaxPrompts) and `best_of`; completions `echo` (with `logprobs` it sets options.prompt_logprobs, and
// it allows max_tokens 0; refused with stream). Features ogai does not implement are refused by
// name when a request asks for them (legacy functions / function_call, a
// response_format schema or grammar the constraint engine cannot enforce (serve/common/response_format.h),
// suffix (no template defines fill-in-the-middle), best_of with stream, echo with stream); other fields are listed in
// unknown_fields (the server warns about them or, with --strict-requests, refuses them).
// Value ranges of sampling fields are the engine's to check (it names the field and the range).
// Every problem throws ApiError (400) naming the field. The body is parsed once (limits, syntax
// and DOM in one pass: json_limits.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ogai/ogai.h"
#include "serve/common/api_error.h"
#include "serve/common/conversation.h"
#include "serve/common/json_limits.h"

namespace ogai::serve {

struct ResponsesState;
struct TranscriptionState;

inline constexpr int kMaxChatTopLogprobs = 20;     // chat top_logprobs
inline constexpr int kMaxCompletionLogprobs = 5;   // completions logprobs (OpenAI's legacy limit)

inline constexpr int kMaxPrompts = 2048;        // completions: entries of an array `prompt`
inline constexpr int kMaxBestOf = 128;          // completions best_of

// One completions prompt: a text or token ids.
struct CompletionPrompt {
  std::optional<std::string> text;
  std::vector<std::int32_t> ids;
};

struct ApiRequest {
  Endpoint endpoint = Endpoint::kChat;
  std::string model;
  // Chat: the conversation as Model::prepare_chat takes it (roles system/user/assistant/tool),
  // lowered from the surface's Conversation by set_conversation() (common/request_fields.h).
  std::vector<ChatMessage> messages;
  std::size_t media_images = 0;             // image parts in messages (for /metrics)
  std::size_t media_audio = 0;              // audio parts in messages or options.media
  ChatOptions chat;                         // chat: tools, tool choice, template variables
  // Chat: set by prompt_ids() (serve/common/prompt.h): how to parse the reply (reasoning, tool calls).
  std::optional<ChatPrompt> chat_prompt;
  std::optional<std::string> prompt_text;   // completions: a text prompt ...
  std::vector<std::int32_t> prompt_ids;     // ... or a prompt given as token ids (unchecked against the vocab)
  // Completions with `prompt` an array of several strings or token-id arrays: prompts 2.. (the
  // first is prompt_text / prompt_ids); each is generated like its own request, n choices each.
  std::vector<CompletionPrompt> more_prompts;
  // Completions best_of (>= n, <= kMaxBestOf; 0: not given): candidates per prompt, of which the n
  // with the highest mean logprob of their sampled tokens are answered. Never with stream.
  int best_of = 0;
  GenerationOptions options;
  bool stream = false;
  bool include_usage = false;               // stream_options.include_usage
  bool echo = false;                        // completions: the response text starts with the prompt
  int n = 1;                                // choices (per prompt); choice i uses seed + i
  // chat: the template's add_generation_prompt (default true; false when continue_final_message
  // is set and it is not), and continue_final_message: the prompt ends inside the last message,
  // which the model continues (both true: 400).
  bool add_generation_prompt = true;
  bool continue_final_message = false;
  bool messages_api = false;                // POST /v1/messages: answered in Anthropic's shape (messages_api.h)
  // POST /v1/responses: what its answer needs besides the chat request (responses_api.h).
  std::shared_ptr<const ResponsesState> responses;
  // POST /v1/audio/transcriptions or /translations: how its answer is rendered (audio/).
  std::shared_ptr<const TranscriptionState> transcription;
  std::vector<std::string> unknown_fields;  // top-level fields this server does not read (unknown_fields.h)
  std::vector<UnenforcedKeyword> unenforced;  // response_format schema keywords not enforced (annotations)
};

// `limits`: the JSON limits and per-field budgets (json_limits.h), checked before the DOM is built.
ApiRequest parse_chat_request(const std::string& body, const JsonLimits& limits = {});
ApiRequest parse_completion_request(const std::string& body, const JsonLimits& limits = {});

}  // namespace ogai::serve
