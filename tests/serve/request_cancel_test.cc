// One cancel token for a request's CPU work (base/cancel.h, issue 37 item 3): under a CancelScope
// whose poll says the client left, the request body's parse, the Responses and Messages
// translations and the chat template's render stop at their next poll (a kCancelled error, after
// a bounded number of polls) instead of running to the end; without a scope, or with a poll that
// stays false, they give what they gave before.
#include <gtest/gtest.h>

#include <string>

#include "base/cancel.h"
#include "chat/template.h"
#include "ogai/error.h"
#include "serve/anthropic/messages_request.h"
#include "serve/common/api_request.h"
#include "serve/responses/responses_api.h"

namespace ogai::serve {
namespace {

// Runs `work` under a scope whose poll answers "gone" from its `gone_after`th poll on; returns the
// polls made when it stopped with kCancelled, or -1 when it ran to its end.
template <typename F>
int polls_until_cancelled(F work, int gone_after) {
  int polls = 0;
  CancelScope scope([&] { return ++polls >= gone_after; });
  try {
    work();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled) << e.what();
    return polls;
  }
  return -1;
}

// 2,000 messages of 40 content parts: ~100,000 JSON values, ~100 polls of the parse alone.
std::string many_parts(const char* role_key_prefix) {
  std::string body = std::string("{\"model\":\"m\",") + role_key_prefix + "\"messages\":[";
  for (int m = 0; m < 2000; ++m) {
    body += (m ? "," : "") + std::string(R"({"role":"user","content":[)");
    for (int p = 0; p < 40; ++p) body += (p ? "," : "") + std::string(R"({"type":"text","text":"x"})");
    body += "]}";
  }
  return body + "]}";
}

TEST(RequestCancel, TheBodysParseAndTranslationsStopAtTheirNextPoll) {
  const std::string chat = many_parts("");
  const std::string messages = many_parts("\"max_tokens\":4,");
  EXPECT_EQ(polls_until_cancelled([&] { parse_chat_request(chat); }, 1), 1);
  EXPECT_EQ(polls_until_cancelled([&] { parse_messages_request(messages, MessagesRoute::kCreate); }, 3), 3);
  std::string input = R"({"model":"m","input":[)";
  for (int i = 0; i < 2000; ++i) input += (i ? "," : "") + std::string(R"({"role":"user","content":"x"})");
  input += "]}";
  EXPECT_EQ(polls_until_cancelled([&] { parse_responses_request(input); }, 2), 2);
  // A poll that never says gone changes nothing.
  EXPECT_EQ(polls_until_cancelled([&] { parse_chat_request(chat); }, 1 << 30), -1);
  EXPECT_EQ(parse_chat_request(chat).messages.size(), 2000u);
}

// One 8 MB string is one JSON token (a handful of SAX events): the parse polls every 64 KiB of
// bytes read, so it stops within the string.
TEST(RequestCancel, TheParseStopsInsideOneLongString) {
  const std::string body = R"({"model":"m","messages":[{"role":"user","content":")" + std::string(8 << 20, 'a') + R"("}]})";
  EXPECT_EQ(polls_until_cancelled([&] { parse_chat_request(body); }, 3), 3);
  EXPECT_EQ(polls_until_cancelled([&] { parse_chat_request(body); }, 1 << 30), -1);
}

TEST(RequestCancel, TheChatTemplatesRenderStopsAtItsNextPoll) {
  const chat::Template t = chat::Template::parse(
      "{% for m in messages %}{% for i in range(50) %}{{ m.content }}{% endfor %}{% endfor %}", "test");
  nlohmann::ordered_json variables = {{"messages", nlohmann::ordered_json::array()}};
  for (int i = 0; i < 2000; ++i) variables["messages"].push_back({{"role", "user"}, {"content", "ab"}});
  const int polls = polls_until_cancelled([&] { (void)t.render(variables); }, 2);
  EXPECT_EQ(polls, 2);
  EXPECT_EQ(t.render(variables).size(), 2000u * 50 * 2);  // no scope: the whole render
}

}  // namespace
}  // namespace ogai::serve
