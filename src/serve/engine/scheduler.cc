#include "serve/engine/scheduler.h"

#include <algorithm>

#include "base/error.h"

namespace ogai::serve {
namespace {

EngineOptions engine_options(EngineOptions o, int max_concurrent) {
  o.max_sequences = max_concurrent;
  return o;
}

}  // namespace

Scheduler::Scheduler(std::shared_ptr<const Model> model, int max_concurrent, int queue_capacity, EngineOptions engine)
    : max_concurrent_(max_concurrent), queue_capacity_(queue_capacity) {
  if (max_concurrent < 1) fail(ErrorCode::kInvalidArgument, "max_concurrent", "{} must be at least 1", max_concurrent);
  if (queue_capacity < 0) fail(ErrorCode::kInvalidArgument, "queue", "{} must be >= 0", queue_capacity);
  engine_ = std::make_unique<Engine>(std::move(model), engine_options(engine, max_concurrent));
}

Scheduler::~Scheduler() {
  shutdown();
  join();
}

Scheduler::Admission Scheduler::submit(Submission s, std::vector<std::shared_ptr<GenerationHandle>>* handles) {
  if (s.n < 1 || s.n > max_concurrent_)
    fail(ErrorCode::kInvalidArgument, "n", "{} choices: n must be in [1, {}] (the server's --max-concurrent)", s.n,
         max_concurrent_);
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || draining_) return Admission::kStopping;
    if (admitted_ + s.n > max_concurrent_ + queue_capacity_) return Admission::kQueueFull;
    admitted_ += s.n;  // held while the engine validates, so a burst cannot overshoot
  }
  auto on_done = [this, done = std::move(s.on_done)](int choice, GenerationHandle& h) {
    if (done) done(choice, h);
    std::lock_guard lock(mutex_);
    --admitted_;
    live_.erase(std::remove_if(live_.begin(), live_.end(), [](const auto& l) { return l->done(); }), live_.end());
    drained_.notify_all();
  };
  std::vector<std::shared_ptr<GenerationHandle>> made;
  try {
    made = engine_->submit_n(s.prompt, s.options, s.n, std::move(s.on_token), std::move(on_done));
  } catch (...) {
    std::lock_guard lock(mutex_);
    admitted_ -= s.n;
    drained_.notify_all();
    throw;
  }
  {
    std::lock_guard lock(mutex_);
    for (const auto& h : made)
      if (!h->done()) live_.push_back(h);
    if (stopping_)
      for (const auto& h : made) h->cancel();
  }
  if (handles) *handles = std::move(made);
  return Admission::kAccepted;
}

int Scheduler::running() const { return engine_->stats().running; }

int Scheduler::queued() const {
  std::lock_guard lock(mutex_);
  return std::max(0, admitted_ - engine_->stats().running);
}

void Scheduler::shutdown() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  for (const auto& h : live_) h->cancel();
}

void Scheduler::join() {
  std::unique_lock lock(mutex_);
  drained_.wait(lock, [&] { return admitted_ == 0; });
}

}  // namespace ogai::serve
