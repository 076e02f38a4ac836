#include "serve/scheduler.h"

#include "base/error.h"
#include "base/log.h"

namespace ogai::serve {

Scheduler::Scheduler(int workers, int queue_capacity) : workers_(workers), queue_capacity_(queue_capacity) {
  if (workers < 1) fail(ErrorCode::kInvalidArgument, "max_concurrent", "{} must be at least 1", workers);
  if (queue_capacity < 0) fail(ErrorCode::kInvalidArgument, "queue", "{} must be >= 0", queue_capacity);
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
}

Scheduler::~Scheduler() {
  shutdown();
  join();
}

Scheduler::Admission Scheduler::submit(Task task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return Admission::kStopping;
    // A task is admitted while it can run now or wait within the queue's capacity.
    if (running_ + static_cast<int>(waiting_.size()) >= workers_ + queue_capacity_) return Admission::kQueueFull;
    waiting_.push_back(std::move(task));
  }
  ready_.notify_one();
  return Admission::kAccepted;
}

void Scheduler::work() {
  for (;;) {
    Task task;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
      if (waiting_.empty()) return;  // stopping, nothing left
      task = std::move(waiting_.front());
      waiting_.pop_front();
      ++running_;
    }
    try {
      task.run();
    } catch (const std::exception& e) {  // tasks handle their own errors; this is a last resort
      log(LogLevel::kError, "serve: a generation task threw: {}", e.what());
    }
    std::lock_guard lock(mutex_);
    --running_;
  }
}

int Scheduler::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

int Scheduler::queued() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(waiting_.size());
}

bool Scheduler::stopping() const { return stopping_.load(); }

void Scheduler::shutdown() {
  std::deque<Task> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(waiting_);
  }
  ready_.notify_all();
  for (auto& task : dropped)
    if (task.drop) task.drop();
}

void Scheduler::join() {
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

}  // namespace ogai::serve
