#include "base/work_pool.h"

#include <algorithm>

namespace ogai {

WorkPool::WorkPool(std::size_t threads) : threads_(std::max<std::size_t>(threads, 1)) {}

WorkPool::~WorkPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

std::size_t WorkPool::default_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(hw == 0 ? 1 : hw, 1, 8);
}

void WorkPool::start() {
  workers_.reserve(threads_ - 1);
  for (std::size_t i = 1; i < threads_; ++i) workers_.emplace_back([this] { work(); });
}

// Takes indices of the loop (fn, n) until none is left.
void WorkPool::drain(const std::function<void(std::size_t)>& fn, std::size_t n) {
  for (std::size_t i = next_.fetch_add(1); i < n; i = next_.fetch_add(1)) fn(i);
}

void WorkPool::work() {
  std::size_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    // The loop as it stands now: a worker that wakes after its loop ended finds no function (or
    // the next loop's, which it then helps with; busy_ keeps that loop from returning first).
    const std::function<void(std::size_t)>* fn = fn_;
    const std::size_t n = n_;
    ++busy_;
    lock.unlock();
    if (fn) drain(*fn, n);
    lock.lock();
    if (--busy_ == 0) idle_.notify_all();
  }
}

void WorkPool::for_each(std::size_t n, const std::function<void(std::size_t)>& fn) {
  if (threads_ == 1 || n < 2) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  if (workers_.empty()) start();
  {
    std::lock_guard<std::mutex> lock(mu_);
    fn_ = &fn;
    n_ = n;
    next_.store(0);
    ++generation_;
  }
  wake_.notify_all();
  drain(fn, n);
  std::unique_lock<std::mutex> lock(mu_);
  // Every index is taken; wait for the workers still running one (a worker that wakes late finds
  // none left and leaves at once).
  idle_.wait(lock, [&] { return busy_ == 0; });
  fn_ = nullptr;
}

}  // namespace ogai
