// WorkflowEngine: the step loop for a looped workflow package (step_engine.h). Requests wait in
// FIFO order until one of limits.max_rows slots is free; each step() advances every running
// request by one loop trip of its own interpreter run (WorkflowSequence::step), so several
// requests progress together, each with its own store, and a request whose trip fails (a graph
// error, a capacity check) ends alone with that error while the others continue. Cancelled
// requests end at the next step. Runs are stepped one after another: the workflows' graphs take
// their own batch rows, and stacking requests into one run's rows is not done yet.
// Not thread-safe: one thread calls everything.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "generate/step_engine.h"
#include "generate/workflow_sequence.h"

namespace ogai::generate {

class WorkflowEngine : public StepEngine {
 public:
  explicit WorkflowEngine(EngineLimits limits);

  void add(std::shared_ptr<WorkflowSequence> sequence);
  void add_generation(std::shared_ptr<Generation> generation) override;
  void step() override;
  bool idle() const override { return waiting_.empty() && running_.empty(); }
  std::vector<std::shared_ptr<Generation>> take_done() override;

  int decoding() const override { return static_cast<int>(running_.size()); }
  int prefilling() const override { return 0; }
  int waiting() const override { return static_cast<int>(waiting_.size()); }
  std::size_t kv_bytes() const override { return 0; }  // the runs' cells are the workflow's own
  const EngineCounters& counters() const override { return counters_; }
  std::size_t bytes_per_position() const override { return 0; }
  void set_kv_budget(std::size_t) override {}

 private:
  void finish(std::shared_ptr<WorkflowSequence> sequence);

  EngineLimits limits_;
  std::deque<std::shared_ptr<WorkflowSequence>> waiting_;
  std::vector<std::shared_ptr<WorkflowSequence>> running_;
  std::vector<std::shared_ptr<Generation>> done_;
  EngineCounters counters_;
};

}  // namespace ogai::generate
