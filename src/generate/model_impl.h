// Model::Impl and Context::State: the loaded package as the generation stage sees it (internal;
// shared by model.cc and the public Engine, engine_api.cc).
#pragma once

#include <memory>
#include <optional>

#include "chat/chat_template.h"
#include "generate/assistant_drafter.h"
#include "generate/decoder.h"
#include "generate/package_config.h"
#include "generate/sequence.h"
#include "generate/speculative.h"
#include "ogai/model.h"
#include "tokenizer/tokenizer.h"

namespace ogai {

struct Model::Impl {
  Impl(generate::PackageConfig c, tokenizer::Tokenizer t, std::optional<chat::ChatTemplate> ct,
       const ort::SessionOptions& options)
      : config(std::move(c)), tokenizer(std::move(t)), chat_template(std::move(ct)),
        decoder(std::make_unique<generate::Decoder>(config.decoder, options)) {
    if (config.assistant) assistant = std::make_unique<generate::AssistantDrafter>(std::move(*config.assistant), options);
  }

  generate::PackageConfig config;
  tokenizer::Tokenizer tokenizer;
  std::optional<chat::ChatTemplate> chat_template;
  // The reply layout from --response-template or the package's tokenizer_config.json; null: the
  // built-in detected from the chat template, per request (chat/reply/reply_layout.h).
  std::shared_ptr<const ReplyLayout> reply_layout;
  std::unique_ptr<generate::Decoder> decoder;
  std::unique_ptr<generate::AssistantDrafter> assistant;  // the package's proposer, when executable
  ModelInfo info;

  GenerationResult run(const generate::ResolvedRequest& request, const SpeculativeOptions& speculative,
                       std::span<const std::int32_t> prompt, generate::SequenceState& state,
                       const StreamCallback& on_token) const;

  generate::SequenceModel sequence_model() const { return {*decoder, tokenizer}; }
  // The drafter and K that `options` ask for (no drafter for kNone), checked against the package:
  // K >= 0 (0 = the drafter's default), the assistant needs an executable proposer and K within
  // its max_proposal_width. Throws ogai::Error naming the field. The assistant drafter is the
  // model's and shared; an n-gram drafter is made per call.
  generate::Speculation speculation(const SpeculativeOptions& options) const;
};

struct Context::State {
  explicit State(const Model& m) : model(&m), sequence(*m.impl().decoder) {}
  const Model* model;
  generate::SequenceState sequence;
};

}  // namespace ogai
