// Python values -> the C++ API's plain structs, and C++ text -> Python str. Type mismatches are
// Python TypeErrors naming the function and the argument; a value of the right type that C++
// refuses is the C++ API's ogai::Error (so ogai.InvalidArgumentError with its message).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <pybind11/pybind11.h>

#include "ogai/ogai.h"

namespace ogai::python {

namespace py = pybind11;

// A Python str of UTF-8 `text`; bytes that are not valid UTF-8 become U+FFFD (never an exception).
py::str to_str(std::string_view text);

// A prompt: text (str) or token ids (a sequence of int).
using Prompt = std::variant<std::string, std::vector<std::int32_t>>;
Prompt prompt_from(const char* function, py::handle prompt);

// What generate() and its relatives accept besides the prompt (docs/python.md):
//   max_new_tokens, temperature, top_k, top_p, min_p, typical_p, repetition_penalty,
//   frequency_penalty, presence_penalty, do_sample, seed, stop (str or list of str; also
//   transformers' name stop_strings),
//   stop_token_ids, ignore_eos, truncate_prompt, add_special_tokens, response_format (OpenAI's dict), logprobs,
//   prompt_logprobs, speculative ("none", "ngram", "assistant"), draft_tokens, stream.
// None leaves a field unset (the package's default, then ogai's). An unknown keyword is a
// TypeError naming it.
struct GenerateArgs {
  GenerationOptions options;
  bool stream = false;
  bool add_special_tokens_set = false;  // the caller chose add_special_tokens explicitly
};
GenerateArgs generate_args(const char* function, const py::kwargs& kwargs);

// [{"role": ..., "content": ...}, ...] -> ChatMessages; InvalidArgumentError naming the element.
std::vector<ChatMessage> messages_from(py::handle messages);

}  // namespace ogai::python
