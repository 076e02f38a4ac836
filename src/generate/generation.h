// Generation: one request as an engine steps it, whichever graphs run it: a LiveSequence (the
// native decoder: prefill, batched decode, speculative verification) or a WorkflowSequence (the
// package's own looped workflow, through the interpreter). What the public Engine, its handles
// and the step loops (step_engine.h) need of every request: cancellation, the end, the result.
// Thread safety: cancel() and cancelled() from any thread; everything else from the engine's.
#pragma once

#include <atomic>
#include <exception>

#include "ogai/generation.h"

namespace ogai::generate {

class Generation {
 public:
  virtual ~Generation() = default;

  void cancel() { cancel_requested_.store(true); }
  bool cancelled() const { return cancel_requested_.load(); }

  virtual bool done() const = 0;
  // Ends the generation now: cancelled (kCancelled), or with an error kept in error().
  virtual void stop_cancelled() = 0;
  virtual void stop_with_error(std::exception_ptr error) = 0;
  // Ends the stream (releases held-back text to the callback) and fills the timings; idempotent.
  virtual void finish() = 0;
  virtual std::exception_ptr error() const = 0;
  virtual GenerationResult& result() = 0;

 private:
  std::atomic<bool> cancel_requested_{false};
};

}  // namespace ogai::generate
