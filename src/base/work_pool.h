// WorkPool: a fixed set of worker threads that run one indexed loop at a time with the calling
// thread (for_each(n, fn) calls fn(0) ... fn(n - 1), each exactly once, and returns when all
// have returned). What the engine uses to sample the rows of a decode step in parallel.
//
// Threads are started on first use that needs them (n >= 2) and joined by the destructor. Work is
// handed out one index at a time (an atomic counter), so uneven items balance. fn must not throw
// (catch inside and record per index); a for_each must not be called from inside fn.
// Not reentrant: one for_each at a time per pool (the owner's thread calls it).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ogai {

class WorkPool {
 public:
  // `threads`: the most threads a loop uses, the caller's included (1 = run inline, no worker).
  explicit WorkPool(std::size_t threads);
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  void for_each(std::size_t n, const std::function<void(std::size_t)>& fn);
  std::size_t threads() const { return threads_; }

  // The default width for per-row host work: the machine's hardware threads, at most 8.
  static std::size_t default_threads();

 private:
  void start();
  void work();
  void drain(const std::function<void(std::size_t)>& fn, std::size_t n);

  const std::size_t threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, idle_;
  const std::function<void(std::size_t)>* fn_ = nullptr;  // the current loop, under mu_
  std::size_t n_ = 0;
  std::size_t generation_ = 0;  // bumped per loop, under mu_
  std::size_t busy_ = 0;        // workers inside the current loop, under mu_
  bool stop_ = false;
  std::atomic<std::size_t> next_{0};
};

}  // namespace ogai
