// ogai::Model: a loaded, validated package, ready to generate.
//
// Model::load() parses and validates inference_metadata against the package's real ONNX graphs,
// loads the tokenizer and chat template, and creates the ONNX Runtime session. A Model is
// immutable after load: every const method may be called from many threads at once, each call
// with its own Context.
//
// A Context is the reusable state of one conversation (the KV cache and the tokens it holds).
// generate() with a Context reuses the longest prefix the new prompt shares with what the Context
// already holds, and only prefills the rest (chat turns, edits). A Context belongs to one Model and
// is used by one thread at a time.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ogai/chat.h"
#include "ogai/error.h"
#include "ogai/export.h"
#include "ogai/generation.h"
#include "ogai/options.h"
#include "ogai/token_id.h"

namespace ogai {

struct ModelInfo {
  std::filesystem::path package;
  std::int64_t vocab_size = 0;      // 0 for a workflow package (its graphs sample)
  std::int64_t context_length = 0;  // positions the model accepts (0 = unknown)
  std::vector<TokenId> eos_token_ids;
  bool has_chat_template = false;
  bool has_tokenizer = true;   // false: prompts are token ids, replies are ids as text
  bool runs_workflow = false;  // the package's own looped workflow generates (the interpreter)
  // An encoder-decoder package (Whisper form): one audio clip per request runs the encoder; the
  // decoder's prompt is a task prompt (docs/encoder_decoder.md), never a chat template's.
  bool encoder_decoder = false;
  // The request fields the package lets a request set (its generation.overrides: "temperature",
  // "do_sample", ...), when it declares them; unset: every field. ogai::Error names any other.
  std::optional<std::vector<std::string>> overridable_fields;
  std::string execution_provider;
  // Model::embed: the vectors' width, 0 when the graph leaves it symbolic (known after a call);
  // `embedding_unavailable` says why the package cannot embed (empty: it can).
  std::int64_t embedding_width = 0;
  std::string embedding_unavailable;
};

// How Model::embed reduces an input's hidden states to one vector: the last token's (the usual
// choice for decoder LLMs, whose last position has seen the whole input), or the mean over all of
// the input's tokens.
enum class Pooling { kLast, kMean };

class Context;

class OGAI_API Model {
 public:
  static std::shared_ptr<const Model> load(const std::filesystem::path& package, const LoadOptions& options = {});
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelInfo& info() const;

  std::vector<TokenId> tokenize(std::string_view text, bool add_special_tokens = true) const;
  std::string detokenize(std::span<const TokenId> ids, bool skip_special_tokens = false) const;
  // The exact bytes token `id` adds to a text when it is not the text's first token (" there" for
  // "▁there"); byte tokens give their raw byte(s), possibly not valid UTF-8 alone; "" for an id
  // that names no token. What log-probability reports show per token.
  std::string token_bytes(TokenId id) const;
  // Renders messages through the package's chat template (ogai::Error if it has none).
  std::string render_chat(std::span<const ChatMessage> messages, bool add_generation_prompt = true) const;
  // Renders messages with tools, tool choice and template variables (include/ogai/chat.h), and
  // says how to parse the reply. ogai::Error kInvalidArgument naming the field (a malformed tool,
  // schema or variable, an unknown tool_choice function); kUnsupported naming the keyword and
  // its JSON pointer for a parameter schema the constraint engine cannot enforce (checked for
  // every tool, whatever the tool choice: fail closed).
  ChatPrompt prepare_chat(std::span<const ChatMessage> messages, const ChatOptions& options) const;

  // Generates from a text prompt (tokenized with options.add_special_tokens) or from token ids.
  // `on_token` (may be empty) sees every token as it is produced and may cancel. `context` (may be
  // null) carries state across calls; without one, each call starts empty.
  GenerationResult generate(std::string_view prompt, const GenerationOptions& options = {},
                            const StreamCallback& on_token = {}, Context* context = nullptr) const;
  GenerationResult generate(std::span<const TokenId> prompt_ids, const GenerationOptions& options = {},
                            const StreamCallback& on_token = {}, Context* context = nullptr) const;
  // Several prompts in one batch (padded per row); equals generating each alone with the same
  // options (a seed is applied per row).
  std::vector<GenerationResult> generate_batch(std::span<const std::string> prompts,
                                               const GenerationOptions& options = {}) const;

  // Embeddings: one vector per input (token ids, e.g. from tokenize()), in input order, for a
  // package whose decoder graph has an output with metadata role hidden_states ([batch, seq,
  // hidden]; the post-final-norm state when it is the lm_head's input). Each input is one prefill
  // from an empty state (nothing generated, no context kept); its hidden states are pooled
  // (`pooling`) over its own positions, then L2-normalized when `normalize`. Inputs are batched:
  // sorted by length and run several to a graph run (right-padded, at most 4096 padded positions
  // and 64 inputs a run) unless the graph's batch dimension is fixed to 1, which runs them one by
  // one; a vector equals the input's alone up to float rounding. Throws ogai::Error: kUnsupported
  // (where "model") for a package without a hidden-state output or a workflow package, saying
  // why (info().embedding_unavailable); kInvalidArgument naming "input[i]" for an empty input, a
  // token id outside the vocabulary or an input longer than the context. `cancelled`, when set,
  // is polled before each graph run: true stops the call with kCancelled (a client that left).
  std::vector<std::vector<float>> embed(std::span<const std::vector<TokenId>> inputs, Pooling pooling = Pooling::kLast,
                                        bool normalize = true, const std::function<bool()>& cancelled = {}) const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class OGAI_API Context {
 public:
  explicit Context(const Model& model);
  ~Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;

  // Tokens whose KV the context holds (prompt and generated so far).
  std::span<const TokenId> tokens() const;
  void reset();  // forget everything

  struct State;
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

// The version of the ONNX Runtime library this process loaded ("1.30.0").
OGAI_API std::string onnxruntime_version();

}  // namespace ogai
