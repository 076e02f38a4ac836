// MemoryReturn: gives the heap memory that large requests freed back to the OS. glibc keeps what
// a request's body, parse tree and buffers freed in its arenas (one per thread that allocated),
// so a burst of large requests would leave RSS at its peak for good. A thread looks every 250 ms
// at the free bytes the arenas hold (mallinfo2) and, once they grew by `threshold` bytes since its
// last trim, trims them (malloc_trim), so RSS is back near where it was within about a second of a burst; what a
// burst frees after that trim is trimmed once the level has settled (unchanged for a period, kSettled above the
// last trim). Idle cost: one mallinfo2 call per period. Without glibc it does nothing.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

namespace ogai::serve {

class MemoryReturn {
 public:
  static constexpr std::size_t kSettled = 1 << 20;
  explicit MemoryReturn(std::size_t threshold = 16 << 20);
  ~MemoryReturn();  // stops the thread
  MemoryReturn(const MemoryReturn&) = delete;
  MemoryReturn& operator=(const MemoryReturn&) = delete;

 private:
  void run();

  const std::size_t threshold_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace ogai::serve
