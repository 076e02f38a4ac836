// The numeric sampling fields of SamplingOptions as one table: every front end (the CLI's flags,
// the server's request fields, Python's keyword arguments, the server's list of known fields)
// is driven by it, so a new knob is declared here once and reaches all of them.
// `name` is the request field and keyword ("top_p"); the CLI flag is "--" + name with '_' as '-'
// ("--top-p"). Not in the table because their front ends differ in kind: do_sample (a bool; not a
// CLI flag), seed (the CLI's -1 draws one; the server lets negative seeds wrap), logit_bias (a map).
// Ranges are checked once, when a request is resolved (generate/request.cc), not by front ends.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "ogai/options.h"

namespace ogai {

struct SamplingField {
  using FloatMember = std::optional<float> SamplingOptions::*;
  using IntMember = std::optional<int> SamplingOptions::*;

  std::string_view name;  // a literal: name.data() is NUL-terminated
  std::string_view help;  // one line for --help
  std::variant<FloatMember, IntMember> member;

  // "--top-p" for "top_p".
  std::string flag() const {
    std::string f = "--" + std::string(name);
    for (char& c : f)
      if (c == '_') c = '-';
    return f;
  }
};

inline constexpr std::array<SamplingField, 8> kSamplingFields = {{
    {"temperature", "sampling temperature (0 = greedy)", &SamplingOptions::temperature},
    {"top_k", "keep the k most likely tokens (0 = off)", &SamplingOptions::top_k},
    {"top_p", "nucleus sampling mass in (0, 1]", &SamplingOptions::top_p},
    {"min_p", "drop tokens below min_p times the top probability", &SamplingOptions::min_p},
    {"typical_p", "locally typical sampling mass in (0, 1]", &SamplingOptions::typical_p},
    {"repetition_penalty", "HF repetition penalty (> 0, 1 = off)", &SamplingOptions::repetition_penalty},
    {"frequency_penalty", "OpenAI frequency penalty", &SamplingOptions::frequency_penalty},
    {"presence_penalty", "OpenAI presence penalty", &SamplingOptions::presence_penalty},
}};

}  // namespace ogai
