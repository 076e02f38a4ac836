#include "chat/continue_final.h"

#include "base/error.h"

namespace ogai::chat {
namespace {

constexpr std::string_view kSpace = " \t\r\n";

std::string_view trimmed_left(std::string_view s) {
  const std::size_t start = s.find_first_not_of(kSpace);
  return start == std::string_view::npos ? std::string_view() : s.substr(start);
}

std::string_view trimmed(std::string_view s) {
  s = trimmed_left(s);
  const std::size_t end = s.find_last_not_of(kSpace);
  return end == std::string_view::npos ? std::string_view() : s.substr(0, end + 1);
}

}  // namespace

std::string continue_final_message(std::string rendered, std::string_view final_content) {
  const std::string_view core = trimmed(final_content);
  if (core.empty()) return rendered;
  const std::size_t at = rendered.rfind(core);
  if (at == std::string::npos)
    fail(ErrorCode::kInvalidArgument, "continue_final_message",
         "the final message's content does not appear in the rendered chat, so it cannot be continued");
  // Keep the content's trailing whitespace when the template kept it too.
  const std::string_view with_tail = trimmed_left(final_content);
  const bool tail_kept = std::string_view(rendered).substr(at, with_tail.size()) == with_tail;
  rendered.resize(at + (tail_kept ? with_tail.size() : core.size()));
  return rendered;
}

}  // namespace ogai::chat
