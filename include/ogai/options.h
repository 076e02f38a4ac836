// Options for loading a package and generating from it. Plain structs; every field documents its
// meaning and default. Sampling fields left unset take the package's `generation.defaults`, then
// its generation_config.json sampling fields, then ogai's own default (request > package > ogai).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ogai/media.h"
#include "ogai/token_id.h"

namespace ogai {

struct LoadOptions {
  std::string execution_provider = "cpu";  // "cpu" or "cuda"
  bool allow_cpu_fallback = false;         // cuda unavailable: false = error, true = warn and use cpu
  int device_id = 0;                       // CUDA device
  int intra_op_threads = 0;                // ONNX Runtime intra-op threads; 0 = ORT's default
  int inter_op_threads = 0;                // ONNX Runtime inter-op threads; 0 = ORT's default
  // > 0: the context (prompt + generated positions) is capped at this many positions, below the
  // package's own (vLLM's --max-model-len); more than the package's is an error. 0 = the package's.
  std::int64_t max_context_length = 0;
  // Non-empty: the chat template to use instead of the package's (a .jinja file, or a
  // tokenizer_config.json / chat_template.json holding one); special tokens still come from the
  // package's tokenizer_config.json. Default: the package's own template, if any.
  std::string chat_template;
  // Non-empty: the response template that parses replies (a JSON file holding
  // {"response_template": {...}}, a tokenizer_config.json, or the template itself). Default: the
  // package's tokenizer_config.json response_template, else its response_schema, else the
  // built-in detected from the chat template (docs/tool_calls.md).
  std::string response_template;
  // Called during long loads with a stage name and a fraction in [0, 1]; may be empty.
  std::function<void(std::string_view stage, double fraction)> progress;
  // For a package whose own looped workflow generates: tensors every request gets, each
  // "NAME=JSON" or "NAME=@FILE.npy" (NAME a workflow input or application alias, JSON typed by
  // its contract), e.g. the application inputs the workflow requires. Refused for other packages.
  std::vector<std::string> workflow_inputs;
  // For a Hugging Face Optimum / onnx-community folder imported in memory: which of its graphs runs,
  // by transformers.js's dtype names (fp32 = model.onnx, fp16 = model_fp16.onnx, q8 =
  // model_quantized.onnx, int8, uint8, q4, q4f16, bnb4; docs/metadata.md). Empty: the folder's
  // config.json transformers.js_config.dtype, else fp32 (as transformers.js on CPU). Set for any
  // other package: an error.
  std::string dtype;
  // Budgets on the images and audio of each request (include/ogai/media.h): decoded by the native
  // engine's encoders, by a Whisper-style encoder's audio program and by a workflow's preprocess
  // adapters; over a budget is an ogai::Error (kInvalidArgument) naming the input and the flag.
  MediaLimits media_limits;
};

struct SamplingOptions {
  std::optional<bool> do_sample;            // false = greedy; default: true iff temperature > 0, else default_do_sample
  std::optional<float> temperature;         // > 0 sharpens/flattens; 0 = greedy. ogai default 1.0
  std::optional<int> top_k;                 // keep the k most likely; 0 = off. ogai default 0
  std::optional<float> top_p;               // nucleus mass in (0, 1]; ogai default 1.0
  std::optional<float> min_p;               // keep p >= min_p * p_max, [0, 1]; ogai default 0
  std::optional<float> typical_p;           // locally typical mass in (0, 1]; ogai default 1.0
  std::optional<float> repetition_penalty;  // HF formula, > 0; ogai default 1.0 (off)
  std::optional<float> frequency_penalty;   // OpenAI semantics, [-2, 2]; ogai default 0
  std::optional<float> presence_penalty;    // OpenAI semantics, [-2, 2]; ogai default 0
  std::optional<std::uint64_t> seed;        // same seed, same options -> same tokens; default: random
  std::map<TokenId, float> logit_bias;      // added to the logits of these token ids
  // Whether to sample when neither the request (do_sample, a temperature, a filter) nor the
  // package (generation.defaults, generation_config.json do_sample) decides: false = greedy, as
  // transformers' generate (the C++ API's default); true = sample at the package's temperature,
  // else 1 (vLLM's and OpenAI's), which the ogai CLI, the C and Python APIs and the server set:
  // docs/cli.md#sampling-default. A temperature of 0 is greedy either way; a package whose
  // generation.overrides leave do_sample out keeps its own rule (greedy unless its defaults sample).
  bool default_do_sample = false;
};

// Speculative decoding: a drafter proposes tokens, the model verifies them all in one step and
// keeps the longest prefix it accepts. Greedy: the output is identical to plain greedy decoding.
// Sampling: speculative sampling; each token has plain sampling's distribution (same seed, same
// output; not the same sample as plain sampling with that seed). Model::generate, generate_batch,
// ogai::Engine and the server run it in the engine: each speculative request gets its own
// verification run per engine step, beside the batched plain rows. docs/speculative.md.
struct SpeculativeOptions {
  enum class Drafter {
    kNone,       // plain decoding (default)
    kAssistant,  // the package's `speculative.proposer` (e.g. the Gemma-4 assistant borrowing the KV)
    kNgram,      // model-free prompt lookup: continue the latest earlier occurrence of the last n-gram
  };
  Drafter drafter = Drafter::kNone;
  int max_draft_tokens = 0;  // per step; 0 = the package's max_proposal_width (assistant) or 4 (n-gram)
  int ngram_max = 3;         // n-gram drafter: longest suffix to match (tries ngram_max down to 2; 1 = one token)
};

// Structured output: the generated text is constrained, token by token, to a format
// (docs/structured_output.md). Fails closed: a schema keyword or grammar construct ogai cannot
// enforce is an ogai::Error (kUnsupported) naming it, never ignored. A generation cut by the
// length limit inside an unfinished value ends with finish reason kLength.
struct ResponseFormat {
  enum class Kind {
    kJsonObject,  // any JSON object (OpenAI's {"type": "json_object"}); `text` unused
    kJsonSchema,  // a JSON value valid against the JSON Schema in `text` (the supported subset)
    kRegex,       // the whole text matches the regular expression in `text` (ECMAScript syntax)
    kGrammar,     // the whole text matches the GBNF grammar in `text` (llama.cpp's format, start rule root)
    // One or more tool calls in a tool-call format, each call's arguments valid against its
    // function's parameter schema. `text` is the JSON document Model::prepare_chat() makes for
    // tool_choice required / a named function (docs/structured_output.md, "Forced calls").
    kToolCalls,
  };
  Kind kind = Kind::kJsonObject;
  std::string text;
  bool strict = true;  // OpenAI's json_schema.strict; ogai enforces the format either way
  // kJsonObject / kJsonSchema: the longest run of blanks (space, tab, newline, carriage return)
  // allowed between JSON tokens, at most 256; 0 (the default) is compact JSON.
  int whitespace = 0;
};

// A schema keyword ogai treats as an annotation (not enforced) although it could validate:
// today a `format` value outside the enforced list. `pointer` is its JSON pointer.
struct UnenforcedKeyword {
  std::string keyword;  // "format"
  std::string value;    // "uri-template"
  std::string pointer;  // "#/properties/link/format"
};

// Whisper's timestamp rules (GenerationOptions::timestamp_rules; docs/encoder_decoder.md): the
// timestamp tokens are every id after <|notimestamps|>, one per 0.02 s.
struct TimestampRules {
  TokenId eos = -1;            // <|endoftext|>
  TokenId no_timestamps = -1;  // <|notimestamps|>
  // The first timestamp is at most <|0.00|> + this many steps (50 = 1.0 s, Whisper's default);
  // unset: no bound.
  std::optional<int> max_initial_index = 50;
};

struct GenerationOptions {
  // Default: the package's max_length, else until the context ends. 0 = prefill only: no token is
  // generated (finish reason kLength); what prompt_logprobs or warming a Context's KV need. < 0 is
  // an error. Prefill only is for single sequences without speculative decoding.
  std::optional<int> max_new_tokens;
  SamplingOptions sampling;
  std::vector<std::string> stop;        // stop strings; never emitted, not even in part
  std::vector<TokenId> stop_token_ids;  // extra ids that end generation (beside the package EOS)
  bool ignore_eos = false;              // keep generating past EOS tokens
  bool add_special_tokens = true;       // text prompts: let the tokenizer add BOS etc.
  bool truncate_prompt = false;         // prompt over the context: false = error, true = keep its end
  int prefill_chunk = 0;                // prefill at most this many tokens per step; 0 = all at once
  // Log-probabilities: unset = off (no cost). N in [0, 20]: every generated token gets its
  // logprob and the N most likely alternatives (GenerationResult::logprobs, StreamEvent::logprobs).
  // Log-softmax of the model's raw logits at that position, before logit bias, penalties,
  // temperature and filtering; docs/sampling.md. Works with batches and speculative decoding.
  std::optional<int> logprobs;
  // Prompt log-probabilities (needs `logprobs` set: same N alternatives): fills
  // GenerationResult::prompt_logprobs, entry i = log-softmax of the raw logits at prompt position
  // i-1 evaluated at prompt id i. Needs a decoder whose logits cover every fed position (else
  // kUnsupported). With a Context the whole prompt is prefilled again (the logits of a reused
  // prefix are not kept). Not with batches or speculative decoding (kUnsupported).
  bool prompt_logprobs = false;
  SpeculativeOptions speculative;
  // Unset (default): free text. Set: constrained decoding (greedy, sampled, batched and
  // speculative alike); the text ends with an end token (EOS or a stop token id) only once it
  // is complete, so ignore_eos needs a stop token id.
  std::optional<ResponseFormat> response_format;
  // Images / audio for a prompt that holds their placeholders, in placeholder order
  // (include/ogai/media.h). Empty for text-only requests; a package without the matching encoder
  // refuses media (kUnsupported naming the media kind).
  std::vector<MediaInput> media;
  // Set: every generated token follows Whisper's timestamp rules (Hugging Face's
  // WhisperTimeStampLogitsProcessor: <|notimestamps|> forbidden, timestamps in pairs and never
  // decreasing, the first token a timestamp within max_initial_index, text forbidden when the
  // timestamps' total probability beats every text token). Not with response_format or
  // allowed_token_ids (kUnsupported).
  std::optional<TimestampRules> timestamp_rules;
  // Non-empty: only these ids may be generated (Whisper's language detection: one step over the
  // language tokens). Not with response_format or timestamp_rules (kUnsupported).
  std::vector<TokenId> allowed_token_ids;
};

// Compiles `format` without a model and throws the ogai::Error generate() would (a malformed
// schema, regex or grammar: kInvalidArgument; something ogai cannot enforce: kUnsupported naming
// the keyword and its JSON pointer). For checking a request before queueing it.
void check_response_format(const ResponseFormat& format);
// check_response_format() that also returns what of the format is not enforced (empty for
// formats other than kJsonSchema), for a response header or a log line.
std::vector<UnenforcedKeyword> check_response_format_annotations(const ResponseFormat& format);

// A bound on the structured-output compilations a thread makes while a CompileBudgetScope lives
// (check_response_format, and those of Engine::submit, Model::generate and Model::prepare_chat
// for a response format or tools): one that runs past `seconds` throws ogai::Error
// kInvalidArgument ("... took longer than the limit of S s (LIMIT_NAME)"), one whose
// `cancelled()` turns true throws kCancelled. Polled every few thousand grammar rules, so it
// ends within milliseconds of its limit. For servers that must not let one request's schema
// hold a thread.
struct CompileBudget {
  double seconds = 0;               // 0: no time limit
  std::string limit_name;           // how the caller names the limit (a flag), for the message
  std::function<bool()> cancelled;  // may be empty
};

class CompileBudgetScope {
 public:
  explicit CompileBudgetScope(CompileBudget budget);  // scopes nest: the innermost one applies
  ~CompileBudgetScope();
  CompileBudgetScope(const CompileBudgetScope&) = delete;
  CompileBudgetScope& operator=(const CompileBudgetScope&) = delete;

  struct State;  // internal

 private:
  State* state_;
  State* previous_;
};

}  // namespace ogai
