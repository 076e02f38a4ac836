// Limits on a request's JSON checked in one streaming (SAX) pass before any DOM is built, so a
// body under the size limit cannot cost many times its size in memory (nested or wide arrays
// become about 50 bytes a value in a DOM) or overflow the stack: nesting depth, the number of
// arrays and objects, and of values. A number out of double's range (1e999, a 10,000-digit
// integer) is refused here too. Each refusal is an ApiError 400 whose param is the top-level field
// that holds the offending value. Per-field budgets bound what one top-level field may hold (its
// items, and the bytes of the strings and keys inside it): a 720,000-string `stop` array is
// refused at its 17th string, before it costs ~100 MB as a DOM and a vector of strings.
// Syntax errors are left to the DOM parse, which names them.
// Costs: one pass over the text, memory constant. Stateless; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

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
// (--max-stop-strings, --max-stop-bytes; OpenAI accepts 4), logit_bias 1024 entries, tools 128
// (OpenAI's limit), messages (and the Responses API's input) 2048.
std::vector<FieldBudget> default_field_budgets(std::size_t max_stop_strings = 16, std::size_t max_stop_bytes = 4096);

struct JsonLimits {
  std::size_t max_depth = 64;             // arrays and objects inside each other
  std::size_t max_containers = 100'000;   // arrays and objects in the whole document
  std::size_t max_values = 1'000'000;     // values of any kind (a prompt of token ids counts one each)
  std::vector<FieldBudget> fields = default_field_budgets();
};

// Throws ApiError 400 when `body` exceeds a limit or holds a number out of range.
void check_json_limits(std::string_view body, const JsonLimits& limits = {});

}  // namespace ogai::serve
