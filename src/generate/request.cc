#include "generate/request.h"

#include <fmt/format.h>

#include "base/error.h"
#include "generate/token_logprobs.h"
#include "grammar/grammar_constraint.h"
#include "sampling/timestamp_rules.h"
#include "sampling/token_allowlist.h"
#include "grammar/response_format.h"

namespace ogai::generate {
namespace {

// Checks a request-set field against the package's overrides.
class OverrideGate {
 public:
  explicit OverrideGate(const PackageGeneration& package) : package_(package) {}

  // `alias`: the field's inference_metadata v1 name, when it differs (max_output_tokens).
  template <typename T>
  void check(const char* field, const std::optional<T>& value, const char* alias = nullptr) const {
    if (!value || !package_.overrides_declared) return;
    auto it = package_.overrides.find(field);
    if (it == package_.overrides.end() && alias) it = package_.overrides.find(alias);
    if (it == package_.overrides.end())
      fail(ErrorCode::kInvalidArgument, field,
           "the package does not allow overriding '{}' (generation.overrides lists: {})", field, listed());
    double v = static_cast<double>(*value);
    const OverrideLimit& limit = it->second;
    if ((limit.minimum && v < *limit.minimum) || (limit.maximum && v > *limit.maximum))
      fail(ErrorCode::kInvalidArgument, field, "{} is outside the package's allowed range [{}, {}]", v,
           limit.minimum ? fmt::format("{}", *limit.minimum) : "-inf",
           limit.maximum ? fmt::format("{}", *limit.maximum) : "+inf");
  }

 private:
  std::string listed() const {
    std::string names;
    for (const auto& [name, _] : package_.overrides) names += (names.empty() ? "" : ", ") + name;
    return names.empty() ? "nothing" : names;
  }
  const PackageGeneration& package_;
};

// The request's value, else the package's, else ogai's.
template <typename R, typename P, typename T>
T pick(const std::optional<R>& request, const std::optional<P>& package, T fallback) {
  if (request) return static_cast<T>(*request);
  if (package) return static_cast<T>(*package);
  return fallback;
}

// ogai's fallback when neither the request nor the package's defaults decide whether to sample
// (SamplingOptions::default_do_sample); a package whose generation.overrides leave do_sample out
// fixes it: greedy unless its defaults say otherwise.
bool fallback_samples(const SamplingOptions& r, const PackageGeneration& package) {
  return r.default_do_sample && (!package.overrides_declared || package.overrides.contains("do_sample"));
}

sampling::SamplingParams resolve_sampling(const SamplingOptions& r, const PackageGeneration& package) {
  const GenerationDefaults& d = package.defaults;
  sampling::SamplingParams p;
  p.temperature = pick(r.temperature, d.temperature, 1.0);
  p.top_k = pick(r.top_k, d.top_k, std::int64_t{0});
  p.top_p = pick(r.top_p, d.top_p, 1.0);
  p.min_p = pick(r.min_p, d.min_p, 0.0);
  p.typical_p = pick(r.typical_p, d.typical_p, 1.0);
  p.repetition_penalty = pick(r.repetition_penalty, d.repetition_penalty, 1.0);
  p.frequency_penalty = r.frequency_penalty.value_or(0.0f);
  p.presence_penalty = r.presence_penalty.value_or(0.0f);
  for (const auto& [id, bias] : r.logit_bias) p.logit_bias[id] = bias;
  p.seed = r.seed;
  p.do_sample = sampling::request_samples(r.do_sample, r.temperature, r.top_k || r.top_p || r.min_p || r.typical_p,
                                          d.do_sample.value_or(fallback_samples(r, package)));
  return p;
}

void check_overrides(const GenerationOptions& o, const PackageGeneration& package) {
  OverrideGate gate(package);
  const SamplingOptions& s = o.sampling;
  gate.check("do_sample", s.do_sample);
  gate.check("temperature", s.temperature);
  gate.check("top_k", s.top_k);
  gate.check("top_p", s.top_p);
  gate.check("min_p", s.min_p);
  gate.check("typical_p", s.typical_p);
  gate.check("repetition_penalty", s.repetition_penalty);
  gate.check("max_new_tokens", o.max_new_tokens, "max_output_tokens");
}

// The request's response format as the sampler's constraint.
std::shared_ptr<const sampling::Constraint> make_constraint(const ResponseFormat& format,
                                                            const PackageGeneration& package,
                                                            const ResolvedRequest& r) {
  if (!package.grammar) {
    grammar::compile_response_format(format);  // the format's own errors first
    fail(ErrorCode::kUnsupported, "response_format", "structured output needs the model's tokenizer vocabulary");
  }
  std::vector<TokenId> ends = r.stop.eos_ids;
  ends.insert(ends.end(), r.stop_token_ids.begin(), r.stop_token_ids.end());
  if (ends.empty())
    fail(ErrorCode::kInvalidArgument, "response_format",
         "constrained output ends with an end token once complete, but there is none (ignore_eos without "
         "stop_token_ids, or a package without EOS ids)");
  return package.grammar->constraint(format, ends);
}

// Whisper's decoding rules as the sampler's constraint (one constraint per request).
std::shared_ptr<const sampling::Constraint> decoding_rules(const GenerationOptions& options) {
  const int set = (options.response_format ? 1 : 0) + (options.timestamp_rules ? 1 : 0) +
                  (options.allowed_token_ids.empty() ? 0 : 1);
  if (set > 1)
    fail(ErrorCode::kUnsupported, options.timestamp_rules ? "timestamp_rules" : "allowed_token_ids",
         "only one of response_format, timestamp_rules and allowed_token_ids may constrain a request");
  if (options.timestamp_rules) {
    const TimestampRules& t = *options.timestamp_rules;
    return std::make_shared<sampling::TimestampRules>(
        sampling::TimestampRuleIds{t.eos, t.no_timestamps, t.max_initial_index});
  }
  if (!options.allowed_token_ids.empty()) return std::make_shared<sampling::TokenAllowlist>(options.allowed_token_ids);
  return nullptr;
}

}  // namespace

ResolvedRequest resolve_request(const GenerationOptions& options, const PackageGeneration& package,
                                std::int64_t prompt_tokens) {
  if (options.media.size() > package.media_limits.max_media_parts)
    fail(ErrorCode::kInvalidArgument, "media", "{} images and audio clips, over the limit of {} (--max-media-parts)",
         options.media.size(), package.media_limits.max_media_parts);
  for (std::size_t i = 0; i < options.media.size(); ++i) {
    const MediaInput& m = options.media[i];
    if (m.bytes.size() > package.media_limits.max_media_bytes)
      fail(ErrorCode::kInvalidArgument, m.origin.empty() ? fmt::format("media[{}]", i) : m.origin,
           "the file is {} bytes, over the limit of {} (--max-media-bytes)", m.bytes.size(),
           package.media_limits.max_media_bytes);
    const bool audio = options.media[i].kind == MediaInput::Kind::kAudio;
    if (!(audio ? package.accepts_audio : package.accepts_images))
      fail(ErrorCode::kUnsupported, fmt::format("media[{}]", i),
           "this package has no {} encoder: {} are not executed for it (docs/multimodal.md)", audio ? "audio" : "image",
           audio ? "audio clips" : "images");
  }
  check_overrides(options, package);
  ResolvedRequest r;
  r.sampling = resolve_sampling(options.sampling, package);
  r.sampling.validate("request");
  if (options.max_new_tokens) {
    if (*options.max_new_tokens < 0)
      fail(ErrorCode::kInvalidArgument, "max_new_tokens", "{} must be at least 0 (0 = prefill only)",
           *options.max_new_tokens);
    r.prefill_only = *options.max_new_tokens == 0;
    if (!r.prefill_only) r.stop.max_new_tokens = *options.max_new_tokens;
  } else if (package.defaults.max_new_tokens) {
    r.stop.max_new_tokens = *package.defaults.max_new_tokens;
  } else if (package.defaults.max_length) {
    r.stop.max_new_tokens = std::max<std::int64_t>(1, *package.defaults.max_length - prompt_tokens);
  }
  if (package.context_limit > 0) r.stop.context_limit = package.context_limit;
  if (!options.ignore_eos) r.stop.eos_ids = package.eos_ids;
  r.stop_on_eos = !options.ignore_eos;
  r.stop_strings = options.stop;
  r.kept_specials = package.kept_specials;
  r.stop_token_ids = options.stop_token_ids;
  if (options.prefill_chunk < 0)
    fail(ErrorCode::kInvalidArgument, "prefill_chunk", "{} must be >= 0", options.prefill_chunk);
  r.prefill_chunk = options.prefill_chunk;
  r.truncate_prompt = options.truncate_prompt;
  if (options.logprobs && (*options.logprobs < 0 || *options.logprobs > kMaxTopLogprobs))
    fail(ErrorCode::kInvalidArgument, "logprobs", "{} top alternatives asked; expected 0 to {}", *options.logprobs,
         kMaxTopLogprobs);
  r.logprobs = options.logprobs;
  if (options.prompt_logprobs && !options.logprobs)
    fail(ErrorCode::kInvalidArgument, "prompt_logprobs",
         "prompt log-probabilities need logprobs set (the number of alternatives, 0 to {})", kMaxTopLogprobs);
  r.prompt_logprobs = options.prompt_logprobs;
  r.sampling.constraint = decoding_rules(options);
  if (options.response_format) r.sampling.constraint = make_constraint(*options.response_format, package, r);
  if (!options.media.empty()) r.media_inputs = std::make_shared<const std::vector<MediaInput>>(options.media);
  return r;
}

}  // namespace ogai::generate
