// A request body read in ONE streaming (SAX) pass that checks its limits while it builds the
// request's DOM (nlohmann::ordered_json: keys in the client's order, so tool schemas, tool_use
// input and response formats keep it), so a body under the size limit cannot cost many times its
// size in memory (nested or wide arrays become about 50 bytes a value in a DOM) or overflow the
// stack, and no body is parsed twice: nesting depth, the number of
// arrays and objects, and of values. A number out of double's range (1e999, a 10,000-digit
// integer) is refused here too. Each refusal is an ApiError 400 whose param is the top-level field
// that holds the offending value. Per-field budgets bound what one top-level field may hold (its
// items, and the bytes of the strings and keys inside it): a 720,000-string `stop` array is
// refused at its 17th string, before it costs ~100 MB as a DOM and a vector of strings.
// Objects are built in linear time (duplicate keys found through a hash index once an object is
// wide; a duplicate keeps its first position and the last value, as nlohmann's parser does).
// Costs: one pass over the text; check_json_limits keeps no DOM (memory constant), parse_json_body
// holds what it built when it refuses (bounded by the limits). Stateless; thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "serve/common/media_input.h"

namespace ogai::serve {

// A bound on one top-level field: its items (of its array or object; 0 = none) and the bytes of
// every string and key inside it (0 = none). `limit` names the bound in the error (a flag).
struct FieldBudget {
  std::string field;
  std::size_t max_items = 0;
  std::size_t max_bytes = 0;
  std::string items_limit;
  std::string bytes_limit;
};

// The default budgets (docs/serve.md "Request budgets"): stop 16 strings of 4096 bytes in all
// (--max-stop-strings, --max-stop-bytes; OpenAI accepts 4; Anthropic's stop_sequences alike), logit_bias 1024 entries, tools 128
// (OpenAI's limit), messages (and the Responses API's input) 2048.
std::vector<FieldBudget> default_field_budgets(std::size_t max_stop_strings = 16, std::size_t max_stop_bytes = 4096);

struct JsonLimits {
  std::size_t max_depth = 64;             // arrays and objects inside each other
  std::size_t max_containers = 100'000;   // arrays and objects in the whole document
  std::size_t max_values = 1'000'000;     // values of any kind (a prompt of token ids counts one each)
  std::vector<FieldBudget> fields = default_field_budgets();
  MediaLimits media;  // images and audio in a request (media_input.h), read by the translators
  // Schema and grammar text (--max-grammar-bytes; 0: not checked in the parse): the values at a
  // route's GrammarPath list, counted while they are read (see GrammarPath).
  std::size_t max_grammar_bytes = 0;
};

// Where a route's request carries grammar text: the value at `keys` (from the top level; "*" is
// any array item; unused trailing keys empty). The parse counts such a value as the compact JSON
// text it will become when the schema is dumped (a lower bound: its strings and keys with quotes
// and colons, a bracket a container and a comma an element, 1 byte a number; a string that is itself the value counts its bytes, as a
// regex or grammar is used unquoted), summed over the paths that share `param`, and refuses the
// request (a 400 grammar_too_large naming `param` and --max-grammar-bytes) the moment a sum passes
// JsonLimits::max_grammar_bytes: an oversized schema costs the parse of the bytes up to the limit,
// never a DOM or a translation of the rest (issue 37). A value at a path counts whether or not the
// request's type then uses it. The exact check on the translated text stays where it was
// (GrammarPool::check_size).
struct GrammarPath {
  std::string_view param;
  std::array<std::string_view, 4> keys{};
};

// Each surface's grammar paths.
inline constexpr GrammarPath kChatGrammarPaths[] = {
    {"response_format", {"response_format", "json_schema", "schema"}},
    {"response_format", {"response_format", "regex"}},
    {"response_format", {"response_format", "grammar"}},
    {"tools", {"tools", "*", "function", "parameters"}},
    {"tools", {"tools", "*", "function", "name"}}};
inline constexpr GrammarPath kCompletionGrammarPaths[] = {
    {"response_format", {"response_format", "json_schema", "schema"}},
    {"response_format", {"response_format", "regex"}},
    {"response_format", {"response_format", "grammar"}}};
inline constexpr GrammarPath kResponsesGrammarPaths[] = {
    {"text.format", {"text", "format", "schema"}},
    {"text.format", {"text", "format", "regex"}},
    {"tools", {"tools", "*", "parameters"}},
    {"tools", {"tools", "*", "name"}}};
inline constexpr GrammarPath kMessagesGrammarPaths[] = {
    {"tools", {"tools", "*", "input_schema"}},
    {"tools", {"tools", "*", "name"}}};

// The DOM every request parser reads: keys in the client's order.
using RequestJson = nlohmann::ordered_json;

// Throws ApiError 400 when `body` exceeds a limit or holds a number out of range; a syntax error
// ends the check without an error (it builds nothing).
void check_json_limits(std::string_view body, const JsonLimits& limits = {},
                       std::span<const GrammarPath> grammar = {});

// The body as a DOM, in the same single pass. Throws ApiError 400 (code invalid_json) when it is
// not JSON (naming the position) or not an object, and the limits' 400s (`grammar`: the route's
// grammar paths, checked against limits.max_grammar_bytes).
RequestJson parse_json_body(std::string_view body, const JsonLimits& limits = {},
                            std::span<const GrammarPath> grammar = {});

}  // namespace ogai::serve
