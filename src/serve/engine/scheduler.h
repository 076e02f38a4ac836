// Scheduler: admission in front of the batched engine (ogai::Engine). Every admitted generation
// is a row of the engine's one batch once it runs: at most `max_concurrent` rows prefill or
// decode at once, at most `queue` more choices wait (FIFO, in the engine), and a submission beyond
// that is refused (the server answers 429), so memory and latency stay bounded under overload.
// No accepted submission is lost: each choice ends exactly once through its `on_done` callback
// (on the engine's thread), finished, failed, cancelled by its caller (a client that went away:
// the handle's cancel() frees its place at the engine's next step, queued or running), or
// cancelled by shutdown() (stopping() is then true).
//
// shutdown() stops admission and cancels everything admitted; join() waits until every admitted
// choice has ended. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ogai/ogai.h"

namespace ogai::serve {

class Scheduler {
 public:
  struct Submission {
    std::vector<std::int32_t> prompt;
    GenerationOptions options;
    int n = 1;  // choices sharing the prompt's prefill
    std::function<bool(int choice, const StreamEvent&)> on_token;  // may be empty
    std::function<void(int choice, GenerationHandle&)> on_done;    // once per choice
  };
  enum class Admission { kAccepted, kQueueFull, kStopping };

  // max_concurrent >= 1 (the engine's rows), queue_capacity >= 0.
  Scheduler(std::shared_ptr<const Model> model, int max_concurrent, int queue_capacity, EngineOptions engine = {});
  ~Scheduler();  // shutdown() and join()
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Throws ogai::Error for what the engine refuses before generating (options out of range, a
  // prompt that does not fit). `handles` (may be null) receives one handle per choice.
  Admission submit(Submission submission, std::vector<std::shared_ptr<GenerationHandle>>* handles = nullptr);

  int running() const;  // choices prefilling or decoding
  int queued() const;   // admitted choices waiting for a row
  bool stopping() const { return stopping_.load(); }
  // Refuses every later submission (kStopping) and lets the admitted ones run to their end; with
  // running() + queued() == 0 afterwards, nothing is left to finish (readiness.h).
  void drain() { draining_ = true; }
  bool draining() const { return draining_.load(); }
  EngineStats engine_stats() const { return engine_->stats(); }

  void shutdown();
  void join();

 private:

  const int max_concurrent_;
  const int queue_capacity_;
  mutable std::mutex mutex_;
  std::condition_variable drained_;
  int admitted_ = 0;  // choices accepted and not ended
  std::vector<std::shared_ptr<GenerationHandle>> live_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> draining_{false};  // checked under mutex_ with admitted_, so no late admission slips past
  std::unique_ptr<Engine> engine_;  // last: destroyed first, while the members its callbacks use live
};

}  // namespace ogai::serve
