// The public ogai::Engine: the model's step loop (step_engine.h) on its own loop thread, with
// an inbox for submissions and handles that wait for results.
#include "ogai/engine.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <thread>

#include "base/error.h"
#include "base/log.h"
#include "generate/engine.h"
#include "generate/live_sequence.h"
#include "generate/model_impl.h"

namespace ogai {

struct GenerationHandle::State {
  std::shared_ptr<generate::Generation> sequence;
  mutable std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  bool taken = false;
  GenerationResult result;
  std::exception_ptr error;
  CompletionCallback on_done;

  void complete(generate::Generation& s) {
    std::lock_guard lock(mutex);
    error = s.error();
    if (!error) result = std::move(s.result());
    done = true;
    ended.notify_all();
  }

  // After the end: drop the sequence (its state, its stream callback) and the completion
  // callback, which may hold the submitter's objects that hold this handle (no reference cycle
  // outlives the generation).
  void release() {
    std::shared_ptr<generate::Generation> gone;
    CompletionCallback done_callback;
    {
      std::lock_guard lock(mutex);
      gone = std::move(sequence);
      done_callback = std::move(on_done);
    }
  }
};

GenerationResult GenerationHandle::wait() {
  std::unique_lock lock(state_->mutex);
  state_->ended.wait(lock, [&] { return state_->done; });
  if (state_->taken) fail(ErrorCode::kInvalidArgument, "GenerationHandle::wait", "the result was already taken");
  state_->taken = true;
  if (state_->error) std::rethrow_exception(state_->error);
  return std::move(state_->result);
}

bool GenerationHandle::done() const {
  std::lock_guard lock(state_->mutex);
  return state_->done;
}

// The loop steps while any sequence is live, so it sees the flag at its next step; nothing to wake.
void GenerationHandle::cancel() {
  std::lock_guard lock(state_->mutex);
  if (state_->sequence) state_->sequence->cancel();  // null once ended
}

namespace {

std::size_t default_kv_budget(const EngineOptions& options, const Model& model, std::size_t per_position) {
  if (options.kv_cache_bytes > 0) return options.kv_cache_bytes;
  const std::size_t context = static_cast<std::size_t>(std::max<std::int64_t>(model.info().context_length, 2048));
  return std::min<std::size_t>(static_cast<std::size_t>(options.max_sequences) * context * per_position, 4ull << 30);
}

generate::EngineLimits limits_of(const EngineOptions& options) {
  if (options.max_sequences < 1)
    fail(ErrorCode::kInvalidArgument, "max_sequences", "{} must be at least 1", options.max_sequences);
  if (options.max_step_tokens < 1)
    fail(ErrorCode::kInvalidArgument, "max_step_tokens", "{} must be at least 1", options.max_step_tokens);
  generate::EngineLimits limits;
  limits.max_rows = options.max_sequences;
  limits.step_tokens = static_cast<std::size_t>(options.max_step_tokens);
  limits.sampling_threads = options.sampling_threads;
  return limits;
}

}  // namespace

struct Engine::Impl {
  Impl(std::shared_ptr<const Model> m, const EngineOptions& o)
      : model(std::move(m)),
        options(o),
        prefix(o.prefix_cache_bytes),
        engine(model->impl().make_engine(limits_of(o), o.prefix_cache_bytes > 0 ? &prefix : nullptr)) {
    kv_budget = default_kv_budget(o, *model, engine->bytes_per_position());
    engine->set_kv_budget(kv_budget);
    loop = std::thread([this] { run(); });
  }

  ~Impl() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    loop.join();
  }

  std::shared_ptr<GenerationHandle::State> make_state(std::shared_ptr<generate::Generation> sequence,
                                                      CompletionCallback on_done) {
    auto state = std::make_shared<GenerationHandle::State>();
    state->sequence = std::move(sequence);
    state->on_done = std::move(on_done);
    return state;
  }

  // `roots`: the first `roots` states go to the engine; the rest travel as forks of the first.
  void enqueue(std::vector<std::shared_ptr<GenerationHandle::State>> states, std::size_t roots = 1) {
    {
      std::lock_guard lock(mutex);
      if (stopping) fail(ErrorCode::kCancelled, "engine", "the engine is shutting down");
      for (std::size_t i = 0; i < roots && i < states.size(); ++i) inbox.push_back(states[i]->sequence);
      for (auto& s : states) live.push_back(std::move(s));
    }
    changed.notify_all();
  }

  void run();
  void deliver();
  void publish_stats();

  std::shared_ptr<const Model> model;
  EngineOptions options;
  generate::PrefixCache prefix;
  std::unique_ptr<generate::StepEngine> engine;  // used by the loop thread only
  std::size_t kv_budget = 0;
  std::thread loop;

  mutable std::mutex mutex;  // guards everything below
  std::condition_variable changed;
  bool stopping = false;
  std::deque<std::shared_ptr<generate::Generation>> inbox;
  std::vector<std::shared_ptr<GenerationHandle::State>> live;
  EngineStats stats;
};

void Engine::Impl::run() {
  for (;;) {
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return stopping || !inbox.empty() || !engine->idle(); });
      if (stopping)
        for (auto& s : live) s->sequence->cancel();
      for (auto& s : inbox) engine->add_generation(std::move(s));
      inbox.clear();
      if (stopping && engine->idle()) break;
    }
    engine->step();
    deliver();
    publish_stats();
  }
  deliver();
}

void Engine::Impl::deliver() {
  auto finished = engine->take_done();
  if (finished.empty()) return;
  std::vector<std::shared_ptr<GenerationHandle::State>> ended;
  {
    std::lock_guard lock(mutex);
    for (const auto& f : finished) {
      auto it = std::find_if(live.begin(), live.end(), [&](const auto& s) { return s->sequence == f; });
      if (it == live.end()) continue;
      ended.push_back(std::move(*it));
      *it = std::move(live.back());
      live.pop_back();
    }
  }
  for (auto& s : ended) {
    s->complete(*s->sequence);
    if (s->on_done) {
      GenerationHandle handle(s);
      try {
        s->on_done(handle);
      } catch (const std::exception& e) {  // the callback's own failure must not end the loop
        log(LogLevel::kError, "engine: a completion callback threw: {}", e.what());
      } catch (...) {
        log(LogLevel::kError, "engine: a completion callback threw");
      }
    }
    s->release();
  }
}

void Engine::Impl::publish_stats() {
  EngineStats s;
  s.running = engine->decoding() + engine->prefilling();
  s.waiting = engine->waiting();
  const auto& c = engine->counters();
  s.steps = c.steps;
  s.decoded_rows = c.decoded_rows;
  s.max_batch = c.max_batch;
  s.prefill_tokens = c.prefill_tokens;
  const auto p = prefix.stats();
  s.prefix_hits = p.hits;
  s.prefix_misses = p.misses;
  s.prefix_reused_tokens = p.reused_tokens;
  s.prefix_cache_bytes = p.bytes;
  s.kv_bytes = engine->kv_bytes();
  s.kv_budget_bytes = kv_budget;
  s.bytes_per_token = engine->bytes_per_position();
  std::lock_guard lock(mutex);
  s.waiting += static_cast<int>(inbox.size());
  stats = s;
}

Engine::Engine(std::shared_ptr<const Model> model, EngineOptions options)
    : impl_(std::make_unique<Impl>(std::move(model), options)) {}

Engine::~Engine() = default;

const Model& Engine::model() const { return *impl_->model; }

EngineStats Engine::stats() const {
  std::lock_guard lock(impl_->mutex);
  EngineStats s = impl_->stats;
  s.waiting = std::max(s.waiting, static_cast<int>(impl_->inbox.size()));
  s.kv_budget_bytes = impl_->kv_budget;
  s.bytes_per_token = impl_->engine->bytes_per_position();
  return s;
}

std::shared_ptr<GenerationHandle> Engine::submit(std::span<const TokenId> prompt_ids, const GenerationOptions& options,
                                                 StreamCallback on_token, CompletionCallback on_done) {
  const Model::Impl& m = impl_->model->impl();
  auto request = generate::resolve_request(options, m.config.generation, static_cast<std::int64_t>(prompt_ids.size()));
  auto state =
      impl_->make_state(m.start(request, options.speculative, prompt_ids, std::move(on_token)), std::move(on_done));
  impl_->enqueue({state});
  return std::make_shared<GenerationHandle>(std::move(state));
}

std::shared_ptr<GenerationHandle> Engine::submit(std::string_view prompt, const GenerationOptions& options,
                                                 StreamCallback on_token, CompletionCallback on_done) {
  auto ids = impl_->model->tokenize(prompt, impl_->model->impl().prompt_template(options));
  return submit(std::span<const TokenId>(ids), options, std::move(on_token), std::move(on_done));
}

std::vector<std::shared_ptr<GenerationHandle>> Engine::submit_n(
    std::span<const TokenId> prompt_ids, const GenerationOptions& options, int n,
    std::function<bool(int choice, const StreamEvent&)> on_token,
    std::function<void(int choice, GenerationHandle&)> on_done) {
  if (n < 1 || n > impl_->options.max_sequences)
    fail(ErrorCode::kInvalidArgument, "n", "{} is not in [1, {}] (the engine's max_sequences)", n,
         impl_->options.max_sequences);
  const Model::Impl& m = impl_->model->impl();
  std::vector<std::shared_ptr<GenerationHandle::State>> states;
  std::size_t roots = 1;  // native choices share the first one's prefill; workflow runs are each their own
  std::random_device entropy;
  for (int i = 0; i < n; ++i) {
    GenerationOptions choice = options;
    if (options.sampling.seed)
      choice.sampling.seed = *options.sampling.seed + static_cast<std::uint64_t>(i);
    else if (n > 1)
      choice.sampling.seed = (static_cast<std::uint64_t>(entropy()) << 32) | entropy();
    auto request = generate::resolve_request(choice, m.config.generation, static_cast<std::int64_t>(prompt_ids.size()));
    StreamCallback callback;
    if (on_token) callback = [on_token, i](const StreamEvent& e) { return on_token(i, e); };
    auto sequence = m.start(request, options.speculative, prompt_ids, std::move(callback));
    auto* first = i > 0 ? dynamic_cast<generate::LiveSequence*>(states.front()->sequence.get()) : nullptr;
    auto live = std::dynamic_pointer_cast<generate::LiveSequence>(sequence);
    if (first && live)
      first->forks().push_back(live);
    else if (i > 0)
      ++roots;
    CompletionCallback done;
    if (on_done) done = [on_done, i](GenerationHandle& h) { on_done(i, h); };
    states.push_back(impl_->make_state(std::move(sequence), std::move(done)));
  }
  impl_->enqueue(states, roots);
  std::vector<std::shared_ptr<GenerationHandle>> handles;
  for (auto& s : states) handles.push_back(std::make_shared<GenerationHandle>(std::move(s)));
  return handles;
}

}  // namespace ogai
