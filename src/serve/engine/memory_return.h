// MemoryReturn: gives the heap memory that large requests freed back to the OS. glibc keeps what
// a request's body, parse tree and buffers freed in its arenas (one per thread that allocated),
// so a burst of large requests would leave RSS at its peak for good. A thread looks every 250 ms
// at the free bytes the arenas hold (mallinfo2) and, once they grew by `threshold` bytes since its
// last trim, trims them (malloc_trim), so RSS is back near where it was within about a second of a burst; what a
// burst frees after that trim is trimmed once the level has settled (unchanged for a period, kSettled above the
// last trim). Idle cost: one mallinfo2 call per period. Without glibc it does nothing.
// It also fixes glibc's thresholds (mallopt, process-wide, at construction): glibc raises its mmap
// threshold to the size of each large block freed (up to 32 MB) and its trim threshold to twice
// that, so after one large request its buffers come from the arenas, and a thread arena's free top
// (which malloc_trim does not shrink) is kept below 64 MB: a 1.5 MB count_tokens body left 24 MB
// resident for good. Fixed, blocks of kMmapThreshold or more are mapped and unmapped on their own,
// and an arena's free top over kTrimThreshold goes back as it is freed.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

namespace ogai::serve {

class MemoryReturn {
 public:
  static constexpr std::size_t kSettled = 1 << 20;
  static constexpr int kMmapThreshold = 256 << 10;
  static constexpr int kTrimThreshold = 1 << 20;
  explicit MemoryReturn(std::size_t threshold = 16 << 20);
  ~MemoryReturn();  // stops the thread
  MemoryReturn(const MemoryReturn&) = delete;
  MemoryReturn& operator=(const MemoryReturn&) = delete;

 private:
  void run();

  const std::size_t threshold_;
  const bool thresholds_fixed_;  // set before the thread starts
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace ogai::serve
