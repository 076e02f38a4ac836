// StepEngine: the step interface between the public Engine's loop thread and the graphs that
// run a package. Model::load chooses the implementation once, by what the package's workflow
// needs (workflow::needs_interpreter):
//   - Engine (engine.h): the native decoder; plain rows share one batched run per step,
//     speculative sequences verify on their own states;
//   - WorkflowEngine (workflow_engine.h): the package's looped workflow, each request a
//     resumable interpreter run advanced one loop trip per step.
// Both take the Generations their model makes (Model::Impl::start) and hand them back when done.
// Not thread-safe: one thread calls everything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "generate/generation.h"

namespace ogai::generate {

struct EngineLimits {
  int max_rows = 16;                // sequences prefilling or decoding at once, >= 1
  std::size_t step_tokens = 512;    // prompt tokens prefilled per step, >= 1
  std::size_t kv_bytes = 0;         // bound on the KV that admitted sequences may grow to; 0 = none
  bool keep_states = false;         // extract each finished sequence's state from the batch
  // Threads that sample the rows of a decode step (the engine's thread included): 0 = the
  // machine's hardware threads, at most 8 (WorkPool::default_threads); 1 = one row after another.
  // Tokens do not depend on it: each row samples with its own sampler and seed.
  int sampling_threads = 0;
};

struct EngineCounters {
  std::uint64_t steps = 0;          // decode runs (workflow: steps that advanced a run)
  std::uint64_t decoded_rows = 0;   // rows over all decode runs (decoded_rows / steps = mean batch)
  std::int64_t max_batch = 0;       // most rows in one decode run
  std::uint64_t prefill_runs = 0;
  std::uint64_t prefill_tokens = 0;
  std::uint64_t speculative_runs = 0;  // verification runs of speculative sequences
};

class StepEngine {
 public:
  virtual ~StepEngine() = default;

  // A generation this engine's model made (throws ogai::Error kInternal for another kind).
  virtual void add_generation(std::shared_ptr<Generation> generation) = 0;
  virtual void step() = 0;
  virtual bool idle() const = 0;
  virtual std::vector<std::shared_ptr<Generation>> take_done() = 0;

  virtual int decoding() const = 0;
  virtual int prefilling() const = 0;
  virtual int waiting() const = 0;
  virtual std::size_t kv_bytes() const = 0;
  virtual const EngineCounters& counters() const = 0;
  virtual std::size_t bytes_per_position() const = 0;
  virtual void set_kv_budget(std::size_t bytes) = 0;
};

}  // namespace ogai::generate
