// ResponseParser: a reply split into message fields by a ResponseTemplate, fed in pieces as it
// streams. The prompt (`prefix`) is read first, from the template's start anchor on, so a region
// the prompt opened (a thinking block) continues in the reply; what the prompt itself wrote is not
// part of the reply.
//
// Streaming rules (docs/tool_calls.md): text that might still turn into a delimiter is held back
// (partial regex matching); content and reasoning are released as they are decided, with
// surrounding whitespace stripped (a text field's `strip`); nothing released is ever retracted.
// A tool call is released as OpenAI streams one: a first delta with id and name once the name is
// known and its arguments have begun, then the arguments as canonical JSON text in pieces as the
// model writes them (JSON dialects such as Gemma-4's converted on the way). A call region whose
// name never appears, or whose text is not a call, becomes content exactly as written; a call
// whose arguments break off after its first delta keeps what was released, closed into valid JSON.
// The whole reply parsed at once gives the same result as any split of it. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "chat/reply/response_template.h"
#include "ogai/chat.h"

namespace ogai::chat::reply {

class ResponseParser {
 public:
  // `parse_tool_calls` false: a tool_calls field is never opened (its text stays content).
  ResponseParser(std::shared_ptr<const ResponseTemplate> tmpl, std::string_view prefix, bool parse_tool_calls = true);
  ~ResponseParser();
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  ChatReplyDelta feed(std::string_view text);
  ChatReplyDelta finish();
  const ChatReply& reply() const { return reply_; }
  // The message in transformers' parse_response shape: defaults, then each field that captured
  // something (tool calls as {"type": "function", "function": {"name", "arguments": {...}}}).
  Json message() const;
  // The field a region of the prompt left open ("" when none).
  const std::string& open_in_prefix() const { return open_in_prefix_; }

  struct Text;
  struct Call;

 private:
  bool step();
  bool scan_openers();
  bool scan_region();
  void release(std::size_t from, std::size_t to);  // text outside regions
  void open_region(int field, const PatternMatch& m);
  void region_body(std::string_view text);
  void close_region(const std::map<std::string, std::string>& close_groups);
  void fall_back(std::string_view raw);  // a region that was not what it claimed: content
  void route(const Field& f, std::string_view piece);
  void reset_after_prefix();
  std::string emit_header(int index, const std::string& name);  // returns the call's id
  void emit_arguments(int index, std::string_view text);
  void add_call(const std::string& id, const std::string& name, const std::string& arguments);
  std::string new_id();

  std::shared_ptr<const ResponseTemplate> t_;
  bool parse_tool_calls_;
  std::string text_;
  std::string partial_utf8_;  // the start of a character whose other bytes have not come yet
  std::size_t pos_ = 0;
  bool at_end_ = false;
  bool stopped_ = false;     // the implicit field's close was seen: the message ended
  bool any_region_ = false;  // a region opened (else, with no implicit field, leftover is content)
  std::string leftover_;     // text outside regions when there is no implicit field
  std::string leftover_content_;  // ... released as content at the end (no region opened)
  std::size_t zero_open_at_ = std::string::npos;  // where an empty opener last matched
  int open_ = -1;
  std::size_t region_start_ = 0, body_start_ = 0;
  std::map<std::string, std::string> captures_;
  std::string body_;         // the open region's text (non-streamed kinds, and for fall-back)
  std::vector<std::unique_ptr<Text>> texts_;  // per field
  std::vector<std::vector<Json>> values_;     // per field: finished values
  std::unique_ptr<Call> call_;
  ChatReplyDelta* out_ = nullptr;
  ChatReply reply_;
  std::vector<Json> call_values_;  // the tool calls in message() form
  std::string open_in_prefix_;
  std::mt19937_64 rng_;
  friend struct Call;
};

}  // namespace ogai::chat::reply
