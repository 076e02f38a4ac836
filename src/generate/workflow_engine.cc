#include "generate/workflow_engine.h"

#include <algorithm>

#include "base/error.h"

namespace ogai::generate {

WorkflowEngine::WorkflowEngine(EngineLimits limits) : limits_(limits) {
  if (limits_.max_rows < 1) fail(ErrorCode::kInvalidArgument, "max_sequences", "{} must be at least 1", limits_.max_rows);
}

void WorkflowEngine::add(std::shared_ptr<WorkflowSequence> sequence) {
  if (sequence->done()) return finish(std::move(sequence));
  waiting_.push_back(std::move(sequence));
}

void WorkflowEngine::add_generation(std::shared_ptr<Generation> generation) {
  auto sequence = std::dynamic_pointer_cast<WorkflowSequence>(std::move(generation));
  if (!sequence) fail(ErrorCode::kInternal, "engine", "a workflow engine steps workflow sequences only");
  add(std::move(sequence));
}

void WorkflowEngine::finish(std::shared_ptr<WorkflowSequence> sequence) {
  sequence->finish();
  done_.push_back(std::move(sequence));
}

std::vector<std::shared_ptr<Generation>> WorkflowEngine::take_done() {
  std::vector<std::shared_ptr<Generation>> out;
  out.swap(done_);
  return out;
}

void WorkflowEngine::step() {
  for (auto it = waiting_.begin(); it != waiting_.end();) {  // cancelled before their first trip
    if (!(*it)->cancelled()) {
      ++it;
      continue;
    }
    (*it)->stop_cancelled();
    finish(std::move(*it));
    it = waiting_.erase(it);
  }
  while (!waiting_.empty() && static_cast<int>(running_.size()) < limits_.max_rows) {
    running_.push_back(std::move(waiting_.front()));
    waiting_.pop_front();
  }
  if (running_.empty()) return;
  ++counters_.steps;
  counters_.decoded_rows += running_.size();
  counters_.max_batch = std::max<std::int64_t>(counters_.max_batch, static_cast<std::int64_t>(running_.size()));
  for (auto& sequence : running_) {
    try {
      sequence->step();
    } catch (...) {  // this request's trip failed: it ends alone
      sequence->stop_with_error(std::current_exception());
    }
  }
  for (std::size_t i = running_.size(); i-- > 0;) {
    if (!running_[i]->done()) continue;
    finish(std::move(running_[i]));
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace ogai::generate
