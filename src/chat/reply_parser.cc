#include "chat/reply_parser.h"

#include <random>

#include "chat/reply/builtin_templates.h"
#include "chat/reply/reply_layout.h"

namespace ogai::chat {
namespace {

std::string new_id() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string id = "call_";
  for (int i = 0; i < 24; ++i) id += kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
  return id;
}

}  // namespace

std::shared_ptr<const ReplyLayout> default_layout(const ChatPrompt& prompt) {
  auto layout = std::make_shared<ReplyLayout>();
  const std::string name = tool_call_format_name(prompt.tool_call_format);
  layout->tmpl = reply::builtin_template(name, !prompt.reasoning_open.empty());
  layout->origin = "builtin:" + name;
  return layout;
}

ReplyParser::ReplyParser(const ChatPrompt& prompt)
    : layout_(prompt.reply_layout ? prompt.reply_layout : default_layout(prompt)),
      parse_tool_calls_(prompt.parse_tool_calls) {
  if (layout_->tmpl) parser_ = std::make_unique<reply::ResponseParser>(layout_->tmpl, prompt.text, parse_tool_calls_);
}

ChatReplyDelta ReplyParser::feed(std::string_view text) {
  if (parser_) return parser_->feed(text);
  text_.append(text);
  return {};
}

ChatReplyDelta ReplyParser::finish() {
  if (parser_) {
    ChatReplyDelta d = parser_->finish();
    message_ = parser_->message();
    return d;
  }
  message_ = layout_->schema->parse(text_);
  if (!parse_tool_calls_ && message_.contains("tool_calls")) {
    message_.erase("tool_calls");
    if (!message_.contains("content")) message_["content"] = text_;
  }
  reply_.content = message_.value("content", std::string());
  reply_.reasoning_content = message_.value("thinking", std::string());
  ChatReplyDelta d;
  d.content = reply_.content;
  d.reasoning_content = reply_.reasoning_content;
  if (message_.contains("tool_calls") && message_["tool_calls"].is_array())
    for (const auto& c : message_["tool_calls"]) {
      const reply::Json& f = c.contains("function") ? c["function"] : c;
      ToolCall call{new_id(), f.value("name", std::string()), ""};
      const reply::Json args = f.contains("arguments") ? f["arguments"] : reply::Json::object();
      call.arguments = args.is_string() ? args.get<std::string>()
                                        : args.dump(-1, ' ', false, reply::Json::error_handler_t::replace);
      const int index = static_cast<int>(reply_.tool_calls.size());
      d.tool_calls.push_back({index, call.id, call.name, ""});
      d.tool_calls.push_back({index, "", "", call.arguments});
      reply_.tool_calls.push_back(std::move(call));
    }
  return d;
}

reply::Json ReplyParser::message() const { return message_; }

}  // namespace ogai::chat

namespace ogai {

struct ChatReplyParser::Impl : chat::ReplyParser {
  using chat::ReplyParser::ReplyParser;
};

ChatReplyParser::ChatReplyParser(const ChatPrompt& prompt) : impl_(new Impl(prompt)) {}
ChatReplyParser::~ChatReplyParser() { delete impl_; }
ChatReplyDelta ChatReplyParser::feed(std::string_view text) { return impl_->feed(text); }
ChatReplyDelta ChatReplyParser::finish() { return impl_->finish(); }
const ChatReply& ChatReplyParser::reply() const { return impl_->reply(); }

ChatReply parse_chat_reply(const ChatPrompt& prompt, std::string_view text) {
  chat::ReplyParser parser(prompt);
  parser.feed(text);
  parser.finish();
  return parser.reply();
}

}  // namespace ogai
