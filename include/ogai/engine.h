// ogai::Engine: continuous batching over one loaded Model, for serving many requests at once.
//
//   auto engine = std::make_shared<ogai::Engine>(model);       // starts its step loop thread
//   auto handle = engine->submit("Once upon a time", options, on_token);
//   ogai::GenerationResult result = handle->wait();            // or handle->cancel()
//
// The engine owns a loop thread that steps every live request together: each step is one
// batched ONNX Runtime run over every decoding sequence (one token each), then prefill of waiting
// prompts in chunks under a token budget (decode first, so inter-token latency stays bounded while
// long prompts arrive). Requests join and leave between steps. Each keeps its own sampler, stop
// rules, logprobs, stream callback and cancellation; each result equals running that request
// alone with Model::generate (same options and seed). A prefix cache keeps finished requests'
// KV so that a prompt sharing a prefix with earlier work does not prefill it again.
// docs/api.md ("Serving many requests") has the scheduling, memory and cache rules.
//
// Thread safety: submit(), stats() and every GenerationHandle method may be called from any
// thread. Stream callbacks run on the engine's thread, one at a time: keep them short; they may
// cancel (return false) or submit, but must not wait() on a handle. Destroying the Engine cancels
// what is still running (finish reason kCancelled) and joins the thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ogai/export.h"
#include "ogai/generation.h"
#include "ogai/model.h"
#include "ogai/options.h"
#include "ogai/token_id.h"

namespace ogai {

struct EngineOptions {
  // Requests prefilling or decoding at once (rows of the batch); more wait in FIFO order. >= 1.
  int max_sequences = 16;
  // Prompt tokens prefilled per step beside the decoding rows (chunked prefill). >= 1.
  int max_step_tokens = 512;
  // Bound on the KV cache the admitted requests may grow to (each counts prompt + max_new_tokens
  // positions, within the context); a request waits while it does not fit (one request alone is
  // always admitted). 0 = the default: max_sequences requests at the full context, at most 4 GiB.
  std::size_t kv_cache_bytes = 0;
  // KV of finished requests kept for prefix reuse, least recently used evicted first; 0 = off.
  std::size_t prefix_cache_bytes = 256u << 20;
  // Threads that sample the rows of one decode step (the engine's own included): 0 = the machine's
  // hardware threads, at most 8; 1 = one row after another. Tokens and logprobs do not depend on it.
  int sampling_threads = 0;
};

struct EngineStats {
  int running = 0;                   // requests prefilling or decoding
  int waiting = 0;                   // submitted, not admitted yet
  std::uint64_t steps = 0;           // batched decode runs
  std::uint64_t decoded_rows = 0;    // rows over all decode runs (/ steps = mean batch size)
  std::int64_t max_batch = 0;        // most rows one decode run held
  std::uint64_t prefill_tokens = 0;  // prompt tokens prefilled
  std::uint64_t prefix_hits = 0;     // admitted prompts that reused cached KV
  std::uint64_t prefix_misses = 0;
  std::uint64_t prefix_reused_tokens = 0;
  std::size_t kv_bytes = 0;            // KV held by the decoding batch now
  std::size_t kv_budget_bytes = 0;     // the bound in force
  std::size_t prefix_cache_bytes = 0;  // KV held by the prefix cache now
  std::size_t bytes_per_token = 0;     // KV bytes one position of one request takes
};

class GenerationHandle;
// Called once on the engine's thread when a generation has ended (its result is ready: wait()
// returns at once). Keep it short; it must not wait on another handle.
using CompletionCallback = std::function<void(GenerationHandle& handle)>;

// One submitted generation. Shared by the submitter and the engine.
class OGAI_API GenerationHandle {
 public:
  // Blocks until the generation ends; returns its result (finish reason kCancelled after
  // cancel()). Throws the ogai::Error that ended it, if any. May be called once.
  GenerationResult wait();
  bool done() const;
  // Ends the generation at the engine's next step (its row and KV are freed then).
  void cancel();

  struct State;
  explicit GenerationHandle(std::shared_ptr<State> state) : state_(std::move(state)) {}

 private:
  std::shared_ptr<State> state_;
};

class OGAI_API Engine {
 public:
  // Throws ogai::Error (kInvalidArgument) for options out of range.
  explicit Engine(std::shared_ptr<const Model> model, EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues a generation. Throws ogai::Error at once for what Model::generate would refuse before
  // generating (options out of range, a prompt that does not fit, speculative options the package
  // cannot serve). Speculative requests (options.speculative) decode in the same engine: each
  // runs its own verification run per step while plain requests share the batched run; the
  // output equals Model::generate with the same options.
  std::shared_ptr<GenerationHandle> submit(std::span<const TokenId> prompt_ids, const GenerationOptions& options = {},
                                           StreamCallback on_token = {}, CompletionCallback on_done = {});
  std::shared_ptr<GenerationHandle> submit(std::string_view prompt, const GenerationOptions& options = {},
                                           StreamCallback on_token = {}, CompletionCallback on_done = {});
  // `n` generations of one prompt that share its prefill: choice i uses seed + i when the options
  // set a seed (each equals Model::generate with that seed), otherwise its own random seed.
  // `on_token(i, event)` streams choice i; `on_done(i, handle)` ends it. n in [1, max_sequences].
  std::vector<std::shared_ptr<GenerationHandle>> submit_n(
      std::span<const TokenId> prompt_ids, const GenerationOptions& options, int n,
      std::function<bool(int choice, const StreamEvent&)> on_token = {},
      std::function<void(int choice, GenerationHandle&)> on_done = {});

  EngineStats stats() const;
  const Model& model() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ogai
