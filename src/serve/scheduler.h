// Scheduler: admission control for generations. A fixed pool of `workers` threads runs tasks; at
// most `queue_capacity` more wait in FIFO order; a task beyond that is refused (the server answers
// 429), so memory and latency stay bounded under overload and no accepted task is lost: every
// accepted task is either run or, at shutdown, dropped through its `drop` function.
//
// shutdown() stops admission and drops the waiting tasks; running tasks finish on their own (the
// server makes them cancel by checking stopping()). join() waits for the workers. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ogai::serve {

class Scheduler {
 public:
  struct Task {
    std::function<void()> run;   // on a worker thread; handles its own errors (must not throw)
    std::function<void()> drop;  // instead of run, when shut down while waiting (may be empty)
  };
  enum class Admission { kAccepted, kQueueFull, kStopping };

  // workers >= 1, queue_capacity >= 0.
  Scheduler(int workers, int queue_capacity);
  ~Scheduler();  // shutdown() and join()
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  Admission submit(Task task);

  int running() const;  // tasks on a worker now
  int queued() const;   // tasks waiting for a worker
  bool stopping() const;

  void shutdown();
  void join();

 private:
  void work();

  const int workers_;
  const int queue_capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Task> waiting_;
  int running_ = 0;
  std::atomic<bool> stopping_{false};  // written under mutex_, read without it
  std::vector<std::thread> threads_;
};

}  // namespace ogai::serve
