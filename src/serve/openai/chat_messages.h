// OpenAI chat `messages` <-> the request model (common/conversation.h).
//
// Reading: a non-empty array of {role, content, tool_calls, tool_call_id, name,
// reasoning_content}; roles system, developer (-> system), user, assistant, tool. content is a
// string, null (assistant only) or an array of parts: {"type": "text", "text"}, {"type":
// "image_url", "image_url": {"url": "data:image/png;base64,...", "detail"}} and {"type":
// "input_audio", "input_audio": {"data": BASE64, "format": "wav" | "mp3" | "flac" | "ogg"}}
// (media in user messages only; bounds and URL rules in common/media_input.h). Other part
// types, legacy function messages and malformed shapes are ApiError 400s naming the field
// (messages[1].content[0].image_url.url). `prefix` is put before every path ("" for a chat body);
// the Responses API reads a stored conversation through this under "previous_response_id".
//
// Writing: a Conversation as chat messages JSON (the same shapes; media as data URLs and
// input_audio), which the Responses store keeps. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "serve/common/conversation.h"
#include "serve/common/json_fields.h"
#include "serve/common/media_input.h"

namespace ogai::serve {

// `origin_all`: when set, every turn's origin (for errors raised later) is this instead of its path.
Conversation read_chat_messages(const RequestJson& messages, MediaReader& media, const std::string& param = "messages",
                                const std::string& origin_all = "");

nlohmann::json chat_messages_json(const Conversation& conversation);

}  // namespace ogai::serve
