#include "chat/reply_parser.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace ogai::chat {
namespace {

constexpr std::string_view kPythonTag = "<|python_tag|>";

bool is_blank(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

std::size_t blanks(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  return i;
}

std::string_view trimmed(std::string_view s) {
  s.remove_prefix(blanks(s));
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// The length of the longest suffix of `s` that is a proper prefix of `marker` (text to hold back).
std::size_t partial_suffix(std::string_view s, std::string_view marker) {
  for (std::size_t n = std::min(s.size(), marker.size() - 1); n > 0; --n)
    if (marker.starts_with(s.substr(s.size() - n))) return n;
  return 0;
}

constexpr std::size_t kNeedMore = 0;
constexpr std::size_t kNotJson = std::string_view::npos;

// The length of the JSON object or array that starts `s`: kNeedMore when it is not closed yet,
// kNotJson when `s` does not start with '{' or '['. Strings and escapes are skipped; the value's
// validity is left to the JSON parser.
std::size_t json_extent(std::string_view s) {
  if (s.empty()) return kNeedMore;
  if (s[0] != '{' && s[0] != '[') return kNotJson;
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return kNeedMore;
}

// {"name": "...", "<key>": {...}} as a call (the id is the caller's); nullopt when it is not one.
std::optional<ToolCall> read_call(const nlohmann::ordered_json& j, std::string_view key) {
  if (!j.is_object()) return std::nullopt;
  auto name = j.find("name");
  if (name == j.end() || !name->is_string() || name->get<std::string>().empty()) return std::nullopt;
  auto args = j.find(std::string(key));
  if (args == j.end()) args = j.find("arguments");
  if (args == j.end()) args = j.find("parameters");
  ToolCall call;
  call.name = name->get<std::string>();
  if (args == j.end()) call.arguments = "{}";
  else if (args->is_object()) call.arguments = args->dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  else if (args->is_string()) call.arguments = args->get<std::string>();
  else return std::nullopt;
  return call;
}

std::optional<std::vector<ToolCall>> read_calls(std::string_view text, std::string_view key) {
  auto j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  std::vector<ToolCall> calls;
  if (!j.is_array()) j = nlohmann::ordered_json::array({std::move(j)});
  for (const auto& item : j) {
    auto call = read_call(item, key);
    if (!call) return std::nullopt;
    calls.push_back(std::move(*call));
  }
  if (calls.empty()) return std::nullopt;
  return calls;
}

// The marker that starts a call section in running content ("" when calls are not parsed there).
std::string_view content_marker(const ChatPrompt& prompt, const ToolCallSyntax& syntax) {
  return prompt.parse_tool_calls ? syntax.marker : std::string_view();
}

}  // namespace

ReplyParser::ReplyParser(const ChatPrompt& prompt)
    : prompt_(prompt),
      syntax_(tool_call_syntax(prompt.tool_call_format)),
      state_(prompt.starts_in_reasoning && !prompt.reasoning_close.empty() ? State::kReasoning : State::kLead),
      rng_(std::random_device{}()) {}

ChatReplyDelta ReplyParser::feed(std::string_view text) {
  ChatReplyDelta out;
  buf_.append(text);
  while (step(out)) {
  }
  return out;
}

ChatReplyDelta ReplyParser::finish() {
  at_end_ = true;
  ChatReplyDelta out;
  while (step(out)) {
  }
  if (state_ == State::kReasoning) emit_reasoning(buf_, out);
  else emit_content(buf_, out);
  buf_.clear();
  if (!held_ws_.empty() && reply_.tool_calls.empty()) {
    out.content += held_ws_;
    reply_.content += held_ws_;
  }
  held_ws_.clear();
  state_ = State::kDone;
  return out;
}

bool ReplyParser::step(ChatReplyDelta& out) {
  switch (state_) {
    case State::kLead: return lead(out);
    case State::kReasoning: return reasoning(out);
    case State::kContent: return content(out);
    case State::kCall: return call(out);
    case State::kDone: return false;
  }
  return false;
}

// The reply's start: a reasoning section, llama3_json calls, or content.
bool ReplyParser::lead(ChatReplyDelta&) {
  const std::string_view rest = std::string_view(buf_).substr(blanks(buf_));
  if (rest.empty()) return false;
  const std::string_view open = prompt_.reasoning_open;
  const bool may_reason = !open.empty() && reply_.reasoning_content.empty() && !skip_ws_;
  if (may_reason && rest.starts_with(open)) {
    buf_.erase(0, buf_.size() - rest.size() + open.size());
    state_ = State::kReasoning;
    return true;
  }
  const bool llama = prompt_.parse_tool_calls && syntax_.format == ToolCallFormat::kLlama3Json;
  if (llama && !reply_.tool_calls.empty() && rest.starts_with(";")) {
    buf_.erase(0, buf_.size() - rest.size() + 1);
    return true;
  }
  if (!at_end_ && ((may_reason && open.starts_with(rest)) || (llama && kPythonTag.starts_with(rest)))) return false;
  if (llama && (rest.starts_with("{") || rest.starts_with(kPythonTag))) {
    buf_.erase(0, buf_.size() - rest.size());
    state_ = State::kCall;
    return true;
  }
  state_ = State::kContent;
  return true;
}

bool ReplyParser::reasoning(ChatReplyDelta& out) {
  const std::string_view close = prompt_.reasoning_close;
  const std::size_t at = buf_.find(close);
  if (at == std::string::npos) {
    const std::size_t hold = partial_suffix(buf_, close);
    emit_reasoning(std::string_view(buf_).substr(0, buf_.size() - hold), out);
    buf_.erase(0, buf_.size() - hold);
    return false;
  }
  emit_reasoning(std::string_view(buf_).substr(0, at), out);
  buf_.erase(0, at + close.size());
  state_ = State::kLead;
  skip_ws_ = true;
  return true;
}

bool ReplyParser::content(ChatReplyDelta& out) {
  if (skip_ws_) {
    buf_.erase(0, blanks(buf_));
    if (buf_.empty()) return false;
    skip_ws_ = false;
  }
  const std::string_view marker = content_marker(prompt_, syntax_);
  const std::size_t at = marker.empty() ? std::string::npos : buf_.find(marker);
  if (at == std::string::npos) {
    const std::size_t hold = at_end_ || marker.empty() ? 0 : partial_suffix(buf_, marker);
    emit_content(std::string_view(buf_).substr(0, buf_.size() - hold), out);
    buf_.erase(0, buf_.size() - hold);
    return false;
  }
  emit_content(std::string_view(buf_).substr(0, at), out);
  held_ws_.clear();  // blanks before a call are dropped
  buf_.erase(0, at);
  state_ = State::kCall;
  return true;
}

// buf_ starts at a call section's marker (llama3_json: at "{" or <|python_tag|>).
bool ReplyParser::call(ChatReplyDelta& out) {
  const bool llama = syntax_.format == ToolCallFormat::kLlama3Json;
  std::string_view marker = llama ? (std::string_view(buf_).starts_with(kPythonTag) ? kPythonTag : std::string_view())
                                  : content_marker(prompt_, syntax_);
  std::string_view body = std::string_view(buf_).substr(marker.size());
  const std::size_t lead_blanks = blanks(body);
  body.remove_prefix(lead_blanks);
  const std::size_t extent = json_extent(body);
  auto malformed = [&] {
    const std::size_t keep = llama ? buf_.size() : marker.size();  // llama3_json: all of it is content
    emit_content(std::string_view(buf_).substr(0, keep), out);
    buf_.erase(0, keep);
    state_ = State::kContent;
    return true;
  };
  if (extent == kNotJson) return malformed();
  if (extent == kNeedMore) return at_end_ ? malformed() : false;
  std::size_t used = marker.size() + lead_blanks + extent;
  const std::string_view close = trimmed(syntax_.call_close);
  if (!close.empty()) {  // hermes: blanks, then </tool_call> (at the very end it may be missing)
    std::string_view after = std::string_view(buf_).substr(used);
    const std::size_t gap = blanks(after);
    after.remove_prefix(gap);
    if (after.starts_with(close)) used += gap + close.size();
    else if (!at_end_ && close.starts_with(after)) return false;
    else if (!(at_end_ && after.empty())) return malformed();
  }
  auto calls = read_calls(body.substr(0, extent), syntax_.arguments_key);
  if (!calls || (syntax_.format != ToolCallFormat::kMistral && body[0] != '{')) return malformed();
  for (auto& c : *calls) emit_call(std::move(c), out);
  buf_.erase(0, used);
  skip_ws_ = true;
  state_ = State::kContent;
  if (llama) state_ = State::kLead;  // further calls follow a ";"
  return true;
}

void ReplyParser::emit_content(std::string_view text, ChatReplyDelta& out) {
  if (text.empty()) return;
  std::size_t last = text.size();
  while (last > 0 && is_blank(text[last - 1])) --last;
  if (last == 0) {
    held_ws_.append(text);
    return;
  }
  std::string piece = held_ws_;
  piece.append(text.substr(0, last));
  held_ws_.assign(text.substr(last));
  out.content += piece;
  reply_.content += piece;
}

void ReplyParser::emit_reasoning(std::string_view text, ChatReplyDelta& out) {
  out.reasoning_content.append(text);
  reply_.reasoning_content.append(text);
}

void ReplyParser::emit_call(ToolCall call, ChatReplyDelta& out) {
  call.id = new_id();
  const int index = static_cast<int>(reply_.tool_calls.size());
  out.tool_calls.push_back({index, call.id, call.name, ""});
  out.tool_calls.push_back({index, "", "", call.arguments});
  reply_.tool_calls.push_back(std::move(call));
}

std::string ReplyParser::new_id() {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string id = "call_";
  for (int i = 0; i < 24; ++i) id += kAlphabet[rng_() % (sizeof(kAlphabet) - 1)];
  return id;
}

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
