#include "serve/engine/memory_return.h"

#include <chrono>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ogai::serve {

namespace {

// Fixed thresholds (memory_return.h); a fixed value also turns glibc's raising of them off.
bool fix_thresholds() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, MemoryReturn::kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, MemoryReturn::kTrimThreshold);
#endif
  return true;
}

}  // namespace

MemoryReturn::MemoryReturn(std::size_t threshold)
    : threshold_(threshold), thresholds_fixed_(fix_thresholds()), thread_([this] { run(); }) {}

MemoryReturn::~MemoryReturn() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
}

// Trims when the free bytes grew by `threshold` since the last trim, or by kSettled once they
// stopped moving for a period (madvised pages still count as free, so the level after a trim is
// the new baseline; a level that falls lowers it). The second rule catches a burst whose last
// frees came after the trim its first ones triggered, less than `threshold` but left in the
// arenas for good otherwise; a level that stays put is trimmed once, not every period.
void MemoryReturn::run() {
  std::unique_lock lock(mutex_);
  std::size_t baseline = 0, previous = 0;
  while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; })) {
#if defined(__GLIBC__)
    lock.unlock();
    const std::size_t free_bytes = mallinfo2().fordblks;
    if (free_bytes < baseline) baseline = free_bytes;
    const bool settled = free_bytes == previous && free_bytes >= baseline + kSettled;
    if (free_bytes >= baseline + threshold_ || settled) {
      malloc_trim(0);
      baseline = mallinfo2().fordblks;
    }
    previous = free_bytes;
    lock.lock();
#endif
  }
}

}  // namespace ogai::serve
