// The onnx-genai.text-assembly@1 processor: the JSON artifact of a text-assembly adapter
// component (`speech_processor.json`) that turns a speech request's `input` and `instructions`
// into the prompt text a package tokenizes, and bounds the request.
//   {max_input_tokens > 0, max_output_units > 0, state_advance_units >= 0 (default 0),
//    segments: [{literal: TEXT} | {field: input|instructions, transforms: [...]}],
//    guidance_rows?: {unconditional_token_id, replace_from, preserve_trailing}}
// Transforms (kind): rewrite_delimited_tags {open, close} ("<|BPM 96|>" -> "BPM is 96"),
// strip_markdown, keep_leading_bracket_tags, replace {from, to}, lowercase_bracket_tags,
// collapse_newlines, prefix {value}. Unknown keys and kinds are refused at load.
//
// It is an API-boundary contract (the reference runtime's rule): a workflow step that invokes
// it is refused when it runs; a route (POST /v1/audio/speech) uses the processor before the
// workflow. Immutable after load; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "metadata/package.h"
#include "ogai/token_id.h"

namespace ogai::workflow {

struct TextTransform {
  std::string kind;
  std::string a, b;  // open/close, from/to, or value (prefix)
};

struct TextSegment {
  std::optional<std::string> literal;
  std::string field;  // input | instructions (when not a literal)
  std::vector<TextTransform> transforms;
};

struct GuidanceRows {
  TokenId unconditional_token_id = 0;
  std::size_t replace_from = 0, preserve_trailing = 0;
};

class TextAssembly {
 public:
  // Throws ogai::Error(kInvalidPackage) naming `where` (the artifact) and the field.
  static TextAssembly parse(const nlohmann::json& doc, const std::string& where);
  static TextAssembly load(const std::filesystem::path& file);

  std::int64_t max_input_tokens() const { return max_input_tokens_; }
  std::int64_t max_output_units() const { return max_output_units_; }
  std::int64_t state_advance_units() const { return state_advance_units_; }

  // The prompt text for a request's fields.
  std::string assemble(const std::string& input, const std::string& instructions) const;
  // The token rows the workflow runs: the prompt, and with guidance_rows an unconditional copy
  // whose ids from replace_from to (size - preserve_trailing) are the unconditional token.
  std::vector<std::vector<TokenId>> token_rows(std::vector<TokenId> tokens) const;
  // Throws kInvalidArgument naming `field` when the prompt has more tokens than max_input_tokens.
  void check_input_tokens(std::size_t count, const std::string& field) const;
  // The requested max_output_units (absent: the declared maximum); throws kInvalidArgument
  // naming `field` outside 1..max_output_units.
  std::int64_t output_units(std::optional<std::int64_t> requested, const std::string& field) const;
  // max_new_tokens for the workflow: output units + state_advance_units.
  std::int64_t max_new_tokens(std::int64_t output_units) const { return output_units + state_advance_units_; }

 private:
  std::int64_t max_input_tokens_ = 0, max_output_units_ = 0, state_advance_units_ = 0;
  std::vector<TextSegment> segments_;
  std::optional<GuidanceRows> guidance_;
};

// One transform applied to `text` (exposed for tests).
std::string apply_text_transform(const TextTransform& transform, const std::string& text);

struct TextAssemblyComponent {
  std::string name;  // the component
  TextAssembly processor;
};
// The package's text-assembly component (contract id or implementation abi
// onnx-genai.text-assembly), loaded from its artifact; nullopt when there is none. Two or more
// are refused (kInvalidPackage) naming each.
std::optional<TextAssemblyComponent> find_text_assembly(const metadata::Package& package);

}  // namespace ogai::workflow
