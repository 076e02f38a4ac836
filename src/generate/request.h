// Resolving a request's options against the package: request values > the package's
// `generation.defaults` (where unset: its generation_config.json sampling fields, filled in by
// package_config.cc) > ogai's own defaults, checked against `generation.overrides`.
//
// ogai's own defaults: greedy decoding; a request that sets temperature > 0 or a filtering
// warper (top_k, top_p, min_p, typical_p) without saying do_sample samples (the OpenAI and
// llama.cpp convention); temperature 0 is greedy. When the package declares overrides, only the
// listed fields may be set by a request, within their [minimum, maximum]; anything else fails
// with ogai::Error naming the field, the value and the allowed range.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grammar/model_grammar.h"
#include "ogai/media.h"
#include "ogai/options.h"
#include "sampling/sampling_params.h"
#include "sampling/stop_checker.h"

namespace ogai::generate {

// The package's generation.defaults (Hugging Face GenerationConfig names).
struct GenerationDefaults {
  std::optional<bool> do_sample;
  std::optional<double> temperature;
  std::optional<std::int64_t> top_k;
  std::optional<double> top_p;
  std::optional<double> min_p;
  std::optional<double> typical_p;
  std::optional<double> repetition_penalty;
  std::optional<std::int64_t> max_length;  // prompt + generated
  std::optional<std::int64_t> max_new_tokens;
};

struct OverrideLimit {
  std::optional<double> minimum;
  std::optional<double> maximum;
};

struct PromptMedia;  // prompt_media.h

struct PackageGeneration {
  GenerationDefaults defaults;
  bool overrides_declared = false;                 // the package has a generation.overrides section
  std::map<std::string, OverrideLimit> overrides;  // field -> allowed range
  std::vector<TokenId> eos_ids;
  // Special tokens that stay in the generated text: the reply markers of the model's response
  // template (reply_markers.h), so its reply parser sees them.
  std::vector<TokenId> kept_specials;
  std::int64_t context_limit = 0;  // positions; 0 = unknown
  // Structured output's per-model state (token bytes, compiled formats); null: response_format is
  // refused (kUnsupported).
  std::shared_ptr<const grammar::ModelGrammar> grammar;
  // Media kinds the package's encoders take (multimodal packages, docs/multimodal.md); a request
  // with another kind is refused by name.
  bool accepts_images = false, accepts_audio = false;
  // LoadOptions::media_limits: a request with more media parts, or a larger file, is refused
  // naming the flag (the decoders check the other budgets).
  MediaLimits media_limits;
};

struct ResolvedRequest {
  sampling::SamplingParams sampling;
  sampling::StopChecker stop;  // eos ids (unless ignored), max_new_tokens, context limit
  std::vector<std::string> stop_strings;
  std::vector<TokenId> stop_token_ids;
  std::vector<TokenId> kept_specials;  // the package's (PackageGeneration::kept_specials)
  int prefill_chunk = 0;
  bool truncate_prompt = false;
  std::optional<int> logprobs;   // unset = off; else alternatives per token, [0, kMaxTopLogprobs]
  bool prompt_logprobs = false;  // also the prompt's logprobs (logprobs is then set)
  bool prefill_only = false;     // max_new_tokens 0: prefill, generate nothing (stop.max_new_tokens unset)
  bool stop_on_eos = true;       // false: ignore_eos (a workflow's generation_eos loop runs every trip)
  // The request's media as given (GenerationOptions::media), until the model encodes them and
  // expands the prompt; then `media` holds the features and where their soft tokens sit.
  std::shared_ptr<const std::vector<MediaInput>> media_inputs;
  std::shared_ptr<const PromptMedia> media;
};

// Throws ogai::Error (kInvalidArgument) for a value out of range or not overridable. A
// response_format is compiled here into sampling.constraint (its errors: check_response_format's),
// bound to the package vocabulary and the end ids (EOS unless ignored, plus stop token ids).
ResolvedRequest resolve_request(const GenerationOptions& options, const PackageGeneration& package,
                                std::int64_t prompt_tokens);

}  // namespace ogai::generate
