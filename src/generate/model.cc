// The public ogai::Model / ogai::Context API over the generation stage.
#include "ogai/model.h"

#include <algorithm>

#include "base/error.h"
#include "base/log.h"
#include "chat/chat_template.h"
#include "generate/batch.h"
#include "generate/model_impl.h"
#include "generate/package_config.h"
#include "generate/ngram_drafter.h"
#include "generate/sequence.h"
#include "generate/session_settings.h"
#include "tokenizer/token_bytes.h"

namespace ogai {

namespace {

using generate::PackageConfig;

std::vector<std::int64_t> resolve_eos_ids(const PackageConfig& config, const tokenizer::Tokenizer& tokenizer) {
  std::vector<std::int64_t> ids = config.eos_ids;
  if (config.eos_token) {
    auto id = tokenizer.token_to_id(*config.eos_token);
    if (!id) fail(ErrorCode::kInvalidPackage, "tokenizer_config.json", "eos_token '{}' is not in the tokenizer", *config.eos_token);
    ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// Prompt logprobs and prefill-only requests run one sequence with plain decoding.
void refuse_prefill_features(const generate::ResolvedRequest& request, const char* mode) {
  if (request.prompt_logprobs)
    fail(ErrorCode::kUnsupported, "prompt_logprobs", "prompt log-probabilities are not supported with {}", mode);
  if (request.prefill_only)
    fail(ErrorCode::kUnsupported, "max_new_tokens", "0 (prefill only) is not supported with {}", mode);
}

void report(const LoadOptions& options, std::string_view stage, double fraction) {
  if (options.progress) options.progress(stage, fraction);
}

}  // namespace

generate::Speculation Model::Impl::speculation(const SpeculativeOptions& options) const {
  using Drafter = SpeculativeOptions::Drafter;
  if (options.drafter == Drafter::kNone) return {};
  if (options.max_draft_tokens < 0)
    fail(ErrorCode::kInvalidArgument, "max_draft_tokens", "{} must be >= 0", options.max_draft_tokens);
  if (options.drafter == Drafter::kNgram) {
    int k = options.max_draft_tokens > 0 ? options.max_draft_tokens : 4;
    return {std::make_shared<generate::NgramDrafter>(options.ngram_max), k};
  }
  if (!assistant)
    fail(ErrorCode::kInvalidArgument, "speculative", "this package has no executable assistant drafter: {}",
         config.assistant_unavailable);
  int k = options.max_draft_tokens > 0 ? options.max_draft_tokens : std::max(config.max_proposal_width, 1);
  if (config.max_proposal_width > 0 && k > config.max_proposal_width)
    fail(ErrorCode::kInvalidArgument, "max_draft_tokens", "{} exceeds the package's max_proposal_width {}", k,
         config.max_proposal_width);
  // Not owning: the assistant lives as long as the model, which outlives its generations.
  return {std::shared_ptr<const generate::Drafter>(std::shared_ptr<void>(), assistant.get()), k};
}

GenerationResult Model::Impl::run(const generate::ResolvedRequest& request, const SpeculativeOptions& speculative,
                                  std::span<const std::int32_t> prompt, generate::SequenceState& state,
                                  const StreamCallback& on_token) const {
  return generate::generate_sequence(sequence_model(), request, prompt, state, on_token, speculation(speculative));
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

std::shared_ptr<const Model> Model::load(const std::filesystem::path& package, const LoadOptions& options) {
  report(options, "metadata", 0.0);
  generate::PackageConfig config = generate::make_package_config(metadata::load_package(package));
  report(options, "tokenizer", 0.2);
  const bool has_tokenizer = !config.tokenizer_json.empty();
  // A token-id package (no tokenizer.json): an empty vocabulary decodes every id to "" and
  // tokenize() refuses text, so prompts are ids and replies are ids.
  tokenizer::Tokenizer tokenizer =
      has_tokenizer ? tokenizer::Tokenizer::load(config.tokenizer_json)
                    : tokenizer::Tokenizer::from_json(R"({"version":"1.0","model":{"type":"WordLevel","vocab":{},)"
                                                      R"("unk_token":"<unk>"}})", "(no tokenizer.json)");
  std::optional<chat::ChatTemplate> chat_template;
  if (!options.chat_template.empty())
    chat_template = chat::ChatTemplate::load_override(options.chat_template, config.root);
  else if (config.has_chat_template)
    chat_template = chat::ChatTemplate::load(config.root);
  config.generation.eos_ids = resolve_eos_ids(config, tokenizer);
  report(options, "model", 0.3);
  ort::SessionOptions so;
  so.execution_provider = options.execution_provider;
  so.allow_cpu_fallback = options.allow_cpu_fallback;
  so.device_id = options.device_id;
  so.intra_op_threads = options.intra_op_threads;
  so.inter_op_threads = options.inter_op_threads;
  so.device_id_set = options.device_id != 0;
  if (config.session) generate::apply_session_settings(*config.session, so, package.string());
  auto impl = std::make_unique<Impl>(std::move(config), std::move(tokenizer), std::move(chat_template), so);
  impl->config.generation.grammar = std::make_shared<grammar::ModelGrammar>(impl->tokenizer);
  report(options, "model", 1.0);
  ModelInfo& info = impl->info;
  info.package = impl->config.root;
  info.vocab_size = impl->decoder->spec().vocab_size;
  info.context_length = impl->config.generation.context_limit;
  for (auto id : impl->config.generation.eos_ids) info.eos_token_ids.push_back(static_cast<std::int32_t>(id));
  info.has_chat_template = impl->chat_template.has_value();
  info.has_tokenizer = has_tokenizer;
  info.execution_provider = options.execution_provider;
  log(LogLevel::kInfo, "loaded {} ({} KV pairs, {} mode)", package.string(), impl->config.decoder.cache.pairs.size(),
      impl->config.decoder.cache.mode == kv::StorageMode::kSharedBuffer ? "shared-buffer" : "append");
  return std::shared_ptr<const Model>(new Model(std::move(impl)));
}

const ModelInfo& Model::info() const { return impl_->info; }

std::vector<std::int32_t> Model::tokenize(std::string_view text, bool add_special_tokens) const {
  if (!impl_->info.has_tokenizer)
    fail(ErrorCode::kUnsupported, impl_->info.package.string(), "the package has no tokenizer.json: give the prompt as "
         "token ids (`--prompt-ids JSON`, or generate() with ids)");
  return impl_->tokenizer.encode(text, add_special_tokens);
}

std::string Model::detokenize(std::span<const std::int32_t> ids, bool skip_special_tokens) const {
  return impl_->tokenizer.decode(ids, skip_special_tokens);
}

std::string Model::token_bytes(std::int32_t id) const { return tokenizer::token_bytes(impl_->tokenizer, id); }

GenerationResult Model::generate(std::string_view prompt, const GenerationOptions& options,
                                 const StreamCallback& on_token, Context* context) const {
  auto ids = tokenize(prompt, options.add_special_tokens);
  return generate(std::span<const std::int32_t>(ids), options, on_token, context);
}

GenerationResult Model::generate(std::span<const std::int32_t> prompt_ids, const GenerationOptions& options,
                                 const StreamCallback& on_token, Context* context) const {
  auto request = generate::resolve_request(options, impl_->config.generation, static_cast<std::int64_t>(prompt_ids.size()));
  if (context == nullptr) {
    generate::SequenceState state(*impl_->decoder);
    return impl_->run(request, options.speculative, prompt_ids, state, on_token);
  }
  if (context->state().model != this)
    fail(ErrorCode::kInvalidArgument, "context", "the context belongs to another model");
  return impl_->run(request, options.speculative, prompt_ids, context->state().sequence, on_token);
}

std::vector<GenerationResult> Model::generate_batch(std::span<const std::string> prompts,
                                                    const GenerationOptions& options) const {
  std::vector<std::vector<std::int32_t>> ids;
  std::size_t longest = 0;
  for (const auto& p : prompts) {
    ids.push_back(tokenize(p, options.add_special_tokens));
    longest = std::max(longest, ids.back().size());
  }
  auto request = generate::resolve_request(options, impl_->config.generation, static_cast<std::int64_t>(longest));
  refuse_prefill_features(request, "batches");
  return generate::generate_batch(impl_->sequence_model(), request, ids, impl_->speculation(options.speculative));
}

Context::Context(const Model& model) : state_(std::make_unique<State>(model)) {}
Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

std::span<const std::int32_t> Context::tokens() const { return state_->sequence.tokens; }

void Context::reset() { state_->sequence.reset(*state_->model->impl().decoder); }

}  // namespace ogai
