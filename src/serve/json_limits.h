// Limits on a request's JSON checked in one streaming (SAX) pass before any DOM is built, so a
// body under the size limit cannot cost many times its size in memory (nested or wide arrays
// become about 50 bytes a value in a DOM) or overflow the stack: nesting depth, the number of
// arrays and objects, and of values. A number out of double's range (1e999, a 10,000-digit
// integer) is refused here too. Each refusal is an ApiError 400 whose param is the top-level field
// that holds the offending value. Syntax errors are left to the DOM parse, which names them.
// Costs: one pass over the text, memory constant. Stateless; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

namespace ogai::serve {

struct JsonLimits {
  std::size_t max_depth = 64;             // arrays and objects inside each other
  std::size_t max_containers = 100'000;   // arrays and objects in the whole document
  std::size_t max_values = 1'000'000;     // values of any kind (a prompt of token ids counts one each)
};

// Throws ApiError 400 when `body` exceeds a limit or holds a number out of range.
void check_json_limits(std::string_view body, const JsonLimits& limits = {});

}  // namespace ogai::serve
