// Model::Impl and Context::State: the loaded package as the generation stage sees it (internal;
// shared by model.cc and the public Engine, engine_api.cc).
//
// Model::load chooses the graphs' side once (workflow::needs_interpreter): the native decoder
// (`decoder`, with the runtime's own decode loop) or the package's looped workflow (`workflow`,
// through the interpreter). start() and make_engine() hide which from every surface.
#pragma once

#include <memory>
#include <optional>

#include "chat/chat_template.h"
#include "generate/assistant_drafter.h"
#include "generate/decoder.h"
#include "generate/embedder.h"
#include "generate/encoder_stage.h"
#include "generate/media_encoders.h"
#include "generate/package_config.h"
#include "generate/prefix_cache.h"
#include "generate/prompt_expansion.h"
#include "generate/sequence.h"
#include "generate/speculative.h"
#include "generate/step_engine.h"
#include "generate/workflow_sequence.h"
#include "ogai/model.h"
#include "tokenizer/tokenizer.h"

namespace ogai {

struct Model::Impl {
  Impl(generate::PackageConfig c, std::optional<tokenizer::Tokenizer> t, std::optional<chat::ChatTemplate> ct)
      : config(std::move(c)), tokenizer(std::move(t)), chat_template(std::move(ct)) {}

  generate::PackageConfig config;
  std::optional<tokenizer::Tokenizer> tokenizer;  // absent: a token-id package
  std::optional<chat::ChatTemplate> chat_template;
  // The reply layout from --response-template or the package's tokenizer_config.json; null: the
  // built-in detected from the chat template, per request (chat/reply/reply_layout.h).
  std::shared_ptr<const ReplyLayout> reply_layout;
  std::unique_ptr<generate::Decoder> decoder;             // the native decoder, or
  std::unique_ptr<generate::WorkflowModel> workflow;      // the looped workflow
  std::unique_ptr<generate::AssistantDrafter> assistant;  // the package's proposer, when executable
  std::unique_ptr<generate::Embedder> embedder;           // over the hidden_states output, when there is one
  std::unique_ptr<generate::EncoderStage> encoder;        // encoder-decoder packages: run once per request
  std::unique_ptr<generate::MediaEncoders> media;         // a multimodal package's encoders, or null
  generate::PromptExpander expander;                      // its placeholder tokens (prompt_expansion.h)
  ModelInfo info;

  // The tokenizer; ogai::Error (kUnsupported) for a package without one.
  const tokenizer::Tokenizer& text() const;

  // A generation of `prompt` (checked: options the graphs cannot serve throw ogai::Error).
  std::shared_ptr<generate::Generation> start(const generate::ResolvedRequest& request,
                                              const SpeculativeOptions& speculative, std::span<const TokenId> prompt,
                                              StreamCallback on_token) const;
  // A multimodal package's prompt: `r`'s media_inputs encoded (moved into r.media, with their
  // marks) and the placeholders expanded. Without media the placeholders are still counted (a
  // placeholder with no media is an error). Other packages: the prompt unchanged.
  std::vector<TokenId> with_media(generate::ResolvedRequest& r, std::span<const TokenId> prompt,
                                  bool speculative) const;
  // The step loop that runs this model's generations together.
  std::unique_ptr<generate::StepEngine> make_engine(generate::EngineLimits limits, generate::PrefixCache* prefix) const;

  GenerationResult run(const generate::ResolvedRequest& request, const SpeculativeOptions& speculative,
                       std::span<const TokenId> prompt, generate::SequenceState& state,
                       const StreamCallback& on_token) const;

  generate::SequenceModel sequence_model() const { return {*decoder, tokenizer ? &*tokenizer : nullptr}; }
  // Whether a text prompt is tokenized with the tokenizer's template: never for an encoder-decoder
  // package, whose decoder prompt is built from its forced ids (encoder_input.h; Whisper's template
  // would append <|endoftext|>).
  bool prompt_template(const GenerationOptions& options) const { return !encoder && options.add_special_tokens; }
  // The drafter and K that `options` ask for (no drafter for kNone), checked against the package:
  // K >= 0 (0 = the drafter's default), the assistant needs an executable proposer and K within
  // its max_proposal_width. Throws ogai::Error naming the field. The assistant drafter is the
  // model's and shared; an n-gram drafter is made per call.
  generate::Speculation speculation(const SpeculativeOptions& options) const;
};

struct Context::State {
  explicit State(const Model& m) : model(&m) {
    if (m.impl().decoder) sequence.emplace(*m.impl().decoder);
  }
  const Model* model;
  std::optional<generate::SequenceState> sequence;  // the native decoder's KV and tokens
  std::vector<TokenId> tokens;                      // a workflow package's: the conversation so far
};

}  // namespace ogai
