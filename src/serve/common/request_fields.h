// The request fields every generation surface shares, read from a request object by name so each
// surface passes its own names (OpenAI's `stop`, Anthropic's `stop_sequences`, Responses'
// `max_output_tokens`) and errors name the client's field: token limits, sampling fields
// (ogai/sampling_fields.h), stop strings, stream. Each problem throws ApiError 400 naming the
// field. Internal to serve; pure functions; thread-safe.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/common/api_request.h"
#include "serve/common/json_fields.h"

namespace ogai::serve {

// An integer field within int's range.
std::optional<int> read_int(const FieldReader& f, const char* name);

// `name` (at least 1; 0 too when `allow_zero`) into options.max_new_tokens.
void read_max_tokens(const FieldReader& f, const char* name, GenerationOptions& options, bool allow_zero = false);

// The sampling fields of ogai/sampling_fields.h, seed and logit_bias; with `only`, just those names.
void read_sampling(const FieldReader& f, SamplingOptions& sampling, std::initializer_list<std::string_view> only = {});

// A string or an array of strings.
std::vector<std::string> read_stop(const FieldReader& f, const char* name);

// stream and stream_options.include_usage.
void read_stream(const FieldReader& f, ApiRequest& request);

// tool_choice required / a named function cannot go with a response_format (400 naming `param`).
void check_forced_call_format(const ApiRequest& request, const std::string& param);

// The lowered chat messages of `conversation` (conversation.h) into request.messages.
void set_conversation(ApiRequest& request, const Conversation& conversation);

}  // namespace ogai::serve
