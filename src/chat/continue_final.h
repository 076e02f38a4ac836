// continue_final_message: a chat rendered so that it ends inside its last message (a "prefill"
// the model continues), as Hugging Face's apply_chat_template(continue_final_message=True) does:
// the template renders the whole chat (without a generation prompt), then everything after the
// last occurrence of the final message's content is cut (the end-of-turn tokens the template
// wrote after it). Pure function; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace ogai::chat {

// `rendered` cut after the last occurrence of `final_content` (surrounding whitespace of the
// content is not required to appear). Throws ogai::Error (kInvalidArgument) when the content
// does not appear in `rendered` (a template that rewrites it).
std::string continue_final_message(std::string rendered, std::string_view final_content);

}  // namespace ogai::chat
