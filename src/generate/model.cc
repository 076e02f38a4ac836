// The public ogai::Model / ogai::Context API over the generation stage.
#include "ogai/model.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.h"
#include "base/log.h"
#include "chat/chat_template.h"
#include "chat/reply/reply_layout.h"
#include "generate/batch.h"
#include "generate/engine.h"
#include "generate/image_tags.h"
#include "generate/kept_specials.h"
#include "generate/model_impl.h"
#include "generate/ngram_drafter.h"
#include "generate/package_config.h"
#include "generate/sequence.h"
#include "generate/sequence_factory.h"
#include "generate/session_preload.h"
#include "generate/session_settings.h"
#include "generate/workflow_engine.h"
#include "media/media_limits.h"
#include "ort/session.h"
#include "tokenizer/token_bytes.h"
#include "workflow/input_specs.h"

namespace ogai {

namespace {

using generate::PackageConfig;

std::vector<TokenId> resolve_eos_ids(const PackageConfig& config, const tokenizer::Tokenizer* tokenizer) {
  std::vector<TokenId> ids = config.eos_ids;
  if (config.eos_token && tokenizer) {
    auto id = tokenizer->token_to_id(*config.eos_token);
    if (!id)
      fail(ErrorCode::kInvalidPackage, "tokenizer_config.json", "eos_token '{}' is not in the tokenizer",
           *config.eos_token);
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

// The response template named by --response-template, else the package's (null: the built-in
// detected per request).
std::shared_ptr<const ReplyLayout> load_layout(const std::string& file, const std::filesystem::path& package) {
  if (!file.empty()) {
    auto layout = chat::reply::load_reply_layout(file);
    if (!layout) fail(ErrorCode::kInvalidArgument, file, "holds neither response_template nor response_schema");
    return std::make_shared<ReplyLayout>(std::move(*layout));
  }
  auto layout = chat::reply::load_reply_layout(package);
  return layout ? std::make_shared<ReplyLayout>(std::move(*layout)) : nullptr;
}

// The special tokens the model's replies keep in their text (kept_specials.h): the markers of its
// response template, or of the built-in detected from its chat template (with and without tools).
std::vector<TokenId> reply_markers(const Model::Impl& impl) {
  std::vector<std::string> sources;
  if (impl.reply_layout) {
    sources = chat::reply::reply_marker_sources(*impl.reply_layout);
  } else if (impl.chat_template) {
    chat::ChatRequest plain, with_tools;
    with_tools.tools = chat::Json::array({{{"type", "function"}, {"function", {{"name", "f"}}}}});
    for (const chat::ChatRequest* r : {&plain, &with_tools}) {
      auto more =
          chat::reply::reply_marker_sources(chat::reply::builtin_layout(impl.chat_template->select(*r).source()));
      sources.insert(sources.end(), more.begin(), more.end());
    }
  }
  return generate::kept_specials(*impl.tokenizer, sources, impl.config.generation.eos_ids);
}

void report(const LoadOptions& options, std::string_view stage, double fraction) {
  if (options.progress) options.progress(stage, fraction);
}

ort::SessionOptions session_options(const LoadOptions& options) {
  ort::SessionOptions so;
  so.execution_provider = options.execution_provider;
  so.allow_cpu_fallback = options.allow_cpu_fallback;
  so.device_id = options.device_id;
  so.intra_op_threads = options.intra_op_threads;
  so.inter_op_threads = options.inter_op_threads;
  so.device_id_set = options.device_id != 0;
  return so;
}

// The tokens output; "" for a media workflow (speech, images) or a transcription package, which
// do not generate() (refused per request).
std::string tokens_output(const workflow::Program& program, const std::string& origin, bool media) {
  for (const auto& [name, out] : program.workflow().outputs)
    if (out.role == "tokens") return name;
  if (media || !program.transcriptions.empty()) return "";
  fail(ErrorCode::kUnsupported, origin,
       "the workflow has no output with role 'tokens' to generate from, nor a speech or image output "
       "(include/ogai/media_generation.h); run it with `ogai run` or ogai::Workflow");
}

// A looped workflow package: the interpreter runs it (its own loop, policies and adapters).
std::unique_ptr<generate::WorkflowModel> load_workflow(metadata::Package package, const LoadOptions& options,
                                                       const tokenizer::Tokenizer* tokenizer) {
  auto w = std::make_unique<generate::WorkflowModel>();
  w->program = workflow::prepare_program(std::move(package), session_options(options), options.media_limits);
  w->media = generate::find_media_workflow(w->program);
  w->tokens_output = tokens_output(w->program, w->program.package.files.metadata_file.string(), w->media.has_value());
  w->tokenizer = tokenizer;
  workflow::RunRequest fixed;
  workflow::add_input_tensors(w->program.workflow(), options.workflow_inputs, fixed);
  w->inputs = std::move(fixed.tensors);
  return w;
}

}  // namespace

generate::Speculation Model::Impl::speculation(const SpeculativeOptions& options) const {
  using Drafter = SpeculativeOptions::Drafter;
  if (options.drafter == Drafter::kNone) return {};
  if (encoder)
    fail(ErrorCode::kUnsupported, "speculative", "encoder-decoder packages decode without speculation (a "
         "verification run would need each row's encoder outputs)");
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

const tokenizer::Tokenizer& Model::Impl::text() const {
  if (!tokenizer)
    fail(ErrorCode::kUnsupported, config.root.string(),
         "the package has no tokenizer.json: give the prompt as token ids (`--prompt-ids JSON`, or generate() with "
         "ids); "
         "its replies are ids as text");
  return *tokenizer;
}

std::shared_ptr<generate::Generation> Model::Impl::start(const generate::ResolvedRequest& request,
                                                         const SpeculativeOptions& speculative,
                                                         std::span<const TokenId> prompt,
                                                         StreamCallback on_token) const {
  if (workflow) {
    if (speculative.drafter != SpeculativeOptions::Drafter::kNone)
      fail(ErrorCode::kUnsupported, "speculative",
           "this package's workflow runs its own decoding loop; ogai's "
           "speculative drafters apply to native decoders only");
    return std::make_shared<generate::WorkflowSequence>(*workflow, request, prompt, std::move(on_token));
  }
  const generate::Speculation s = speculation(speculative);
  if (encoder) {
    auto prepared = encoder->prepare(request, prompt);
    generate::SequenceState state(*decoder);
    state.cross = std::move(prepared.cross);
    return generate::make_sequence({sequence_model(), request, prepared.prompt, std::move(on_token), s, std::move(state)});
  }
  if (media) {
    generate::ResolvedRequest r = request;
    const std::vector<TokenId> ids = with_media(r, prompt, s.drafter != nullptr);
    return generate::make_sequence({sequence_model(), r, ids, std::move(on_token), s});
  }
  return generate::make_sequence({sequence_model(), request, prompt, std::move(on_token), s});
}

std::vector<TokenId> Model::Impl::with_media(generate::ResolvedRequest& r, std::span<const TokenId> prompt,
                                             bool speculative) const {
  if (!media) return {prompt.begin(), prompt.end()};
  auto inputs = std::move(r.media_inputs);
  r.media_inputs.reset();
  auto encoded = std::make_shared<generate::PromptMedia>();
  if (inputs) {
    for (std::size_t i = 0; i < inputs->size(); ++i) {
      const MediaInput& m = (*inputs)[i];
      const std::string what = fmt::format("media[{}]{}", i, m.origin.empty() ? "" : " (" + m.origin + ")");
      encoded->items.push_back(media->encode(m, what));
    }
  }
  std::vector<TokenId> ids = expander.expand(prompt, *encoded);
  if (decoder && decoder->spec().mrope)  // Qwen2-VL-style decoders: the prompt's 3-D positions
    encoded->set_mrope(static_cast<std::int64_t>(ids.size()));
  if (!encoded->items.empty()) {
    if (speculative)
      fail(ErrorCode::kUnsupported, "speculative", "speculative decoding does not take images or audio yet");
    r.media = std::move(encoded);
  }
  return ids;
}

std::unique_ptr<generate::StepEngine> Model::Impl::make_engine(generate::EngineLimits limits,
                                                               generate::PrefixCache* prefix) const {
  if (workflow) return std::make_unique<generate::WorkflowEngine>(limits);
  return std::make_unique<generate::Engine>(sequence_model(), limits, prefix);
}

GenerationResult Model::Impl::run(const generate::ResolvedRequest& request, const SpeculativeOptions& speculative,
                                  std::span<const TokenId> prompt, generate::SequenceState& state,
                                  const StreamCallback& on_token) const {
  const generate::Speculation s = speculation(speculative);
  if (encoder) {  // each request its own encoder outputs: a context's state starts over
    auto prepared = encoder->prepare(request, prompt);
    state.reset(*decoder);
    state.cross = std::move(prepared.cross);
    return generate::generate_sequence(sequence_model(), request, prepared.prompt, state, on_token, s);
  }
  if (media) {
    generate::ResolvedRequest r = request;
    const std::vector<TokenId> ids = with_media(r, prompt, s.drafter != nullptr);
    return generate::generate_sequence(sequence_model(), r, ids, state, on_token, s);
  }
  return generate::generate_sequence(sequence_model(), request, prompt, state, on_token, s);
}

namespace {

// Steps generations of a workflow package to their ends, `rows` at a time.
std::vector<GenerationResult> run_workflow(const Model::Impl& m, std::vector<std::shared_ptr<generate::Generation>> gs,
                                           int rows) {
  generate::EngineLimits limits;
  limits.max_rows = std::max(rows, 1);
  auto engine = m.make_engine(limits, nullptr);
  for (const auto& g : gs) engine->add_generation(g);
  while (!engine->idle()) engine->step();
  engine->take_done();
  std::vector<GenerationResult> results;
  for (auto& g : gs) {
    if (g->error()) std::rethrow_exception(g->error());
    results.push_back(std::move(g->result()));
  }
  return results;
}

}  // namespace

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

namespace {

// --ctx-size: the stop rules, admission and KV growth all read these two limits.
void cap_context(generate::PackageConfig& config, std::int64_t cap) {
  if (cap == 0) return;
  std::int64_t& limit = config.generation.context_limit;
  if (cap < 0) fail(ErrorCode::kInvalidArgument, "max_context_length", "{} must be at least 1", cap);
  if (limit > 0 && cap > limit)
    fail(ErrorCode::kInvalidArgument, "max_context_length",
         "{} exceeds the package's context of {} positions (it can only be lowered)", cap, limit);
  limit = cap;
  config.decoder.max_length = config.decoder.cache.max_length = cap;
}

// Model::embed's runner over the decoder's hidden_states output, or why there is none.
void attach_embedder(Model::Impl& impl) {
  const std::string& port = impl.config.hidden_states_output;
  if (port.empty()) {
    impl.info.embedding_unavailable =
        "the package's decoder graph has no output with metadata role hidden_states "
        "(its last hidden state), which embeddings are pooled from";
    return;
  }
  try {
    impl.embedder = std::make_unique<generate::Embedder>(*impl.decoder, port);
    impl.info.embedding_width = impl.embedder->width();
  } catch (const Error& e) {
    impl.info.embedding_unavailable = e.what();
  }
}

// The graphs a native package opens besides its decoder's, created in parallel with it
// (generate/session_preload.h): the embedding stage, the first media encoder of each kind (the one
// MediaEncoders uses), the assistant drafter.
std::vector<std::filesystem::path> secondary_graphs(const generate::PackageConfig& config) {
  std::vector<std::filesystem::path> graphs;
  if (config.decoder.embedding) graphs.push_back(config.decoder.embedding->artifact);
  if (config.multimodal) {
    bool image = false, audio = false;
    for (const auto& e : config.multimodal->encoders) {
      bool& seen = e.kind == metadata::MediaKind::kAudio ? audio : image;
      if (!seen) graphs.push_back(e.artifact);
      seen = true;
    }
  }
  if (config.assistant) graphs.push_back(config.assistant->artifact);
  return graphs;
}

}  // namespace

std::shared_ptr<const Model> Model::load(const std::filesystem::path& package, const LoadOptions& options) {
  report(options, "metadata", 0.0);
  metadata::Package loaded = metadata::load_package(package, {.document_only = false, .optimum_dtype = options.dtype});
  const bool interpreted = workflow::needs_interpreter(loaded);  // the one decision: which graphs run it
  if (!interpreted && !options.workflow_inputs.empty())
    fail(ErrorCode::kInvalidArgument, "workflow_inputs", "apply to packages whose workflow the interpreter runs only");
  generate::PackageConfig config =
      interpreted ? generate::make_workflow_config(loaded) : generate::make_package_config(loaded);
  report(options, "tokenizer", 0.2);
  std::optional<tokenizer::Tokenizer> tokenizer;
  if (!config.tokenizer_json.empty()) tokenizer = tokenizer::Tokenizer::load(config.tokenizer_json);
  std::optional<chat::ChatTemplate> chat_template;
  if (!options.chat_template.empty())
    chat_template = chat::ChatTemplate::load_override(options.chat_template, config.root);
  else if (config.has_chat_template)
    chat_template = chat::ChatTemplate::load(config.root);
  config.generation.eos_ids = resolve_eos_ids(config, tokenizer ? &*tokenizer : nullptr);
  cap_context(config, options.max_context_length);
  config.generation.media_limits = options.media_limits;
  report(options, "model", 0.3);
  std::shared_ptr<const ReplyLayout> layout = load_layout(options.response_template, config.root);
  auto impl = std::make_unique<Impl>(std::move(config), std::move(tokenizer), std::move(chat_template));
  impl->reply_layout = std::move(layout);
  ort::SessionOptions so = session_options(options);
  if (impl->config.session) generate::apply_session_settings(*impl->config.session, so, package.string());
  if (interpreted) {
    impl->workflow = load_workflow(std::move(loaded), options, impl->tokenizer ? &*impl->tokenizer : nullptr);
  } else {
    std::optional<generate::SessionPreload> preload;
    if (generate::SessionPreload::enabled()) preload.emplace(secondary_graphs(impl->config), so);
    generate::SessionPreload* started = preload ? &*preload : nullptr;
    impl->decoder = std::make_unique<generate::Decoder>(impl->config.decoder, so, started);
    if (impl->config.encoder) {
      impl->config.encoder->input.limits = media::decode_limits(options.media_limits);
      impl->encoder = std::make_unique<generate::EncoderStage>(std::move(*impl->config.encoder), *impl->decoder, so);
      impl->config.generation.accepts_audio = impl->encoder->takes_audio();
    }
    if (impl->config.multimodal) {
      impl->media = std::make_unique<generate::MediaEncoders>(*impl->config.multimodal, loaded.document.preprocessing,
                                                              *impl->decoder->embedding(), so, started);
      impl->media->image_limits = media::image_limits(options.media_limits);
      impl->media->audio_limits = media::decode_limits(options.media_limits);
      impl->expander = impl->media->hd_tiles()
                           ? generate::PromptExpander::numbered_images()
                           : generate::PromptExpander::for_vocabulary(impl->tokenizer ? &*impl->tokenizer : nullptr);
    }
    attach_embedder(*impl);
    if (impl->config.assistant)
      impl->assistant = std::make_unique<generate::AssistantDrafter>(std::move(*impl->config.assistant), so, started);
  }
  if (impl->tokenizer) impl->config.generation.grammar = std::make_shared<grammar::ModelGrammar>(*impl->tokenizer);
  if (impl->tokenizer) impl->config.generation.kept_specials = reply_markers(*impl);
  report(options, "model", 1.0);
  ModelInfo& info = impl->info;
  info.package = impl->config.root;
  info.vocab_size = impl->decoder ? impl->decoder->spec().vocab_size : 0;
  info.context_length = impl->config.generation.context_limit;
  info.eos_token_ids = impl->config.generation.eos_ids;
  info.has_chat_template = impl->chat_template.has_value();
  info.has_tokenizer = impl->tokenizer.has_value();
  info.runs_workflow = interpreted;
  info.encoder_decoder = impl->encoder != nullptr;
  if (impl->workflow && impl->workflow->media) {
    impl->media_workflow = impl->workflow->media;
    info.media_kind = impl->media_workflow->kind;
  }
  if (const auto& g = impl->config.generation; g.overrides_declared) {
    info.overridable_fields.emplace();
    for (const auto& [field, _] : g.overrides) info.overridable_fields->push_back(field);
  }
  info.execution_provider = options.execution_provider;
  if (interpreted)
    info.embedding_unavailable =
        "the package's workflow runs through the interpreter; embeddings are read from a "
        "native decoder's hidden_states output";
  if (interpreted)
    log(LogLevel::kInfo, "loaded {} (its workflow runs through the interpreter)", package.string());
  else
    log(LogLevel::kInfo, "loaded {} ({} KV pairs, {} mode)", package.string(), impl->config.decoder.cache.pairs.size(),
        impl->config.decoder.cache.mode == kv::StorageMode::kSharedBuffer ? "shared-buffer" : "append");
  return std::shared_ptr<const Model>(new Model(std::move(impl)));
}

std::string onnxruntime_version() { return ort::runtime_version(); }

const ModelInfo& Model::info() const { return impl_->info; }

std::vector<TokenId> Model::tokenize(std::string_view text, bool add_special_tokens) const {
  if (impl_->media && impl_->expander.numbered())  // Phi-3-V: <|image_N|> becomes -N (image_tags.h)
    return generate::encode_with_image_tags(impl_->text(), text, add_special_tokens);
  return impl_->text().encode(text, add_special_tokens);
}

std::string Model::detokenize(std::span<const TokenId> ids, bool skip_special_tokens) const {
  if (!impl_->tokenizer) {  // ids as text, as the replies of a tokenizer-less package
    std::string out;
    for (auto id : ids) out += (out.empty() ? "" : " ") + std::to_string(id);
    return out;
  }
  return impl_->tokenizer->decode(ids, skip_special_tokens);
}

std::string Model::token_bytes(TokenId id) const { return tokenizer::token_bytes(impl_->text(), id); }

GenerationResult Model::generate(std::string_view prompt, const GenerationOptions& options,
                                 const StreamCallback& on_token, Context* context) const {
  auto ids = tokenize(prompt, impl_->prompt_template(options));
  return generate(std::span<const TokenId>(ids), options, on_token, context);
}

GenerationResult Model::generate(std::span<const TokenId> prompt_ids, const GenerationOptions& options,
                                 const StreamCallback& on_token, Context* context) const {
  auto request =
      generate::resolve_request(options, impl_->config.generation, static_cast<std::int64_t>(prompt_ids.size()));
  if (context != nullptr && context->state().model != this)
    fail(ErrorCode::kInvalidArgument, "context", "the context belongs to another model");
  if (impl_->workflow) {  // a workflow run starts from its prompt: a context keeps the tokens only
    auto results = run_workflow(*impl_, {impl_->start(request, options.speculative, prompt_ids, on_token)}, 1);
    if (context != nullptr) {
      auto& tokens = context->state().tokens;
      tokens.assign(prompt_ids.begin(), prompt_ids.end());
      tokens.insert(tokens.end(), results[0].ids.begin(), results[0].ids.end());
    }
    return std::move(results[0]);
  }
  if (context == nullptr) {
    generate::SequenceState state(*impl_->decoder);
    return impl_->run(request, options.speculative, prompt_ids, state, on_token);
  }
  return impl_->run(request, options.speculative, prompt_ids, *context->state().sequence, on_token);
}

std::vector<GenerationResult> Model::generate_batch(std::span<const std::string> prompts,
                                                    const GenerationOptions& options) const {
  std::vector<std::vector<TokenId>> ids;
  std::size_t longest = 0;
  for (const auto& p : prompts) {
    ids.push_back(tokenize(p, impl_->prompt_template(options)));
    longest = std::max(longest, ids.back().size());
  }
  auto request = generate::resolve_request(options, impl_->config.generation, static_cast<std::int64_t>(longest));
  refuse_prefill_features(request, "batches");
  if (request.media_inputs)
    fail(ErrorCode::kInvalidArgument, "media",
         "generate_batch shares one GenerationOptions across its prompts; give each prompt its media through "
         "ogai::Engine::submit");
  for (auto& p : ids) p = impl_->with_media(request, p, false);  // multimodal packages: placeholders counted
  if (impl_->workflow || impl_->encoder) {  // each through start(): an encoder package's own run
    std::vector<std::shared_ptr<generate::Generation>> gs;
    for (const auto& p : ids) gs.push_back(impl_->start(request, options.speculative, p, {}));
    const int rows = static_cast<int>(gs.size());
    return run_workflow(*impl_, std::move(gs), rows);
  }
  return generate::generate_batch(impl_->sequence_model(), request, ids, impl_->speculation(options.speculative));
}

Context::Context(const Model& model) : state_(std::make_unique<State>(model)) {}
Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

std::span<const TokenId> Context::tokens() const {
  return state_->sequence ? std::span<const TokenId>(state_->sequence->tokens) : state_->tokens;
}

void Context::reset() {
  if (state_->sequence) state_->sequence->reset(*state_->model->impl().decoder);
  state_->tokens.clear();
}

}  // namespace ogai
