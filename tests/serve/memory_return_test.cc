// MemoryReturn (serve/engine/memory_return.h): heap memory freed in the middle of the heap goes back to
// the OS, also when the burst freed less than the 16 MB threshold (the settled-level rule).
// A binary of its own: it reads its process's RSS.
#include "serve/engine/memory_return.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

namespace ogai::serve {
namespace {

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long value = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> value;
      return value;
    }
    status.ignore(1 << 12, '\n');
  }
  return -1;
}

TEST(MemoryReturn, ASettledBurstUnderTheThresholdIsTrimmed) {
#if !defined(__GLIBC__)
  GTEST_SKIP() << "trimming needs glibc";
#else
  MemoryReturn returner;  // threshold 16 MB; this burst frees 8 MB
  std::vector<void*> chunks;
  for (int i = 0; i < 2048; ++i) {  // 8 MB in 4 KiB pieces, touched, on the main heap
    void* p = std::malloc(4000);
    std::memset(p, 1, 4000);
    chunks.push_back(p);
  }
  void* pin = std::malloc(4000);  // above them: the heap's top cannot shrink back over the freed pieces
  std::memset(pin, 1, 4000);
  const long before = rss_kib();
  for (void* p : chunks) std::free(p);
  const long freed = rss_kib();
  EXPECT_GT(freed, before - 2048) << "glibc keeps freed pieces below the top (nothing to test otherwise)";
  long now = freed;
  const auto start = std::chrono::steady_clock::now();
  while (now > freed - 4096 && std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    now = rss_kib();
  }
  EXPECT_LE(now, freed - 4096) << "RSS " << before << " KiB before, " << freed << " after free, " << now
                               << " KiB 5 s later";
  std::free(pin);
#endif
}

}  // namespace
}  // namespace ogai::serve
